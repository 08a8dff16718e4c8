// Render options for one message: the sender's and the organization's settings, and the organization's linkifiers (cached per node).
import type { AppContext } from '../../context.js';
import type { Realm, User } from '../../store/schema.js';
import { RealmCache } from '../realm-cache.js';
import type { RenderOptions } from './context.js';
import type { Linkifier } from './linkifiers.js';
import { userSetting } from '../../models/user-settings.js';
import { realmSettings } from '../realm-settings.js';
import { realmUrl } from '../state/realm.js';

/** The realm's linkifiers in the order they apply; frozen, since every send of the realm shares the list. */
export type RealmLinkifiers = readonly Linkifier[];

const cache = new RealmCache<RealmLinkifiers>('linkifiers_changed', async (app, realmId) => {
  const rows = await app.store.db.selectFrom('realm_linkifiers').select(['id', 'pattern', 'url_template']).where('realm_id', '=', realmId).orderBy('sort_order').orderBy('id').execute();
  return Object.freeze(rows.map((r) => Object.freeze({ id: r.id, pattern: r.pattern, url_template: r.url_template })));
});

/** The realm's linkifiers: a query on first use, then from memory until an administrator changes them. */
export function realmLinkifierList(app: AppContext, realmId: number): Promise<RealmLinkifiers> {
  return cache.get(app, realmId);
}

/** Call after committing a change of linkifiers: every node (this one at once) reloads the realm's list. */
export function linkifiersChanged(app: AppContext, realmId: number): void {
  cache.changed(app, realmId);
}

/**
 * Everything loadRenderContext needs besides the content: the sender's translate_emoticons, the
 * organization's URL (links into it become #narrow/… fragments), its inline_image_preview and
 * default_code_block_language, and its linkifiers. Only the linkifiers may cost a query, once per
 * realm and node until they change.
 */
export async function renderOptionsFor(app: AppContext, realm: Realm, sender: Pick<User, 'settings'>): Promise<RenderOptions> {
  const s = realmSettings(realm);
  return {
    translateEmoticons: userSetting(sender.settings, 'translate_emoticons') === true,
    realmUrl: realmUrl(app.config.externalUrl, realm.string_id),
    inlineImagePreview: s.inline_image_preview !== false,
    defaultCodeBlockLanguage: typeof s.default_code_block_language === 'string' ? s.default_code_block_language : '',
    linkifiers: await realmLinkifierList(app, realm.id),
    camo: app.imageProxy ?? null,
  };
}
