// What the renderer needs from the organization (users, groups, channels, settings), loaded with a few bounded queries.
import type { Tx } from '../../store/store.js';
import { compileLinkifiers, type CompiledLinkifier, type Linkifier } from './linkifiers.js';
import { emojiUrl } from '../realm-emoji.js';

export interface RenderUser {
  id: number;
  full_name: string;
}

export interface RenderGroup {
  id: number;
  name: string;
}

export interface RenderStream {
  id: number;
  name: string;
}

/** A custom emoji of the organization (table realm_emoji). */
export interface RealmEmoji {
  id: string;
  name: string;
  url: string;
}

export interface RenderContext {
  /** Lower-cased full name → users with that name (several when names collide). */
  byName: Map<string, RenderUser[]>;
  byId: Map<number, RenderUser>;
  /** Lower-cased name → named (non-anonymous, active) user group. */
  groupsByName: Map<string, RenderGroup>;
  /** Lower-cased name → channel. */
  streamsByName: Map<string, RenderStream>;
  linkifiers: readonly CompiledLinkifier[];
  realmEmoji: Map<string, RealmEmoji>;
  /** The sender's translate_emoticons setting. */
  translateEmoticons: boolean;
  /** The organization's URL without a trailing slash; links into it become fragment links. */
  realmUrl: string | null;
  /** The organization's inline_image_preview setting. */
  inlineImagePreview: boolean;
  /** The organization's default_code_block_language ('' for none). */
  defaultCodeBlockLanguage: string;
  /** Image proxy for external video previews (the original's camo form); without one the original URL is used. */
  camo: { uri: string; key: string } | null;
}

export interface RenderContextInit {
  users?: RenderUser[];
  groups?: RenderGroup[];
  streams?: RenderStream[];
  linkifiers?: readonly Linkifier[];
  realmEmoji?: RealmEmoji[];
  translateEmoticons?: boolean;
  realmUrl?: string | null;
  inlineImagePreview?: boolean;
  defaultCodeBlockLanguage?: string;
  camo?: { uri: string; key: string } | null;
}

/** Shared, so contexts without linkifiers reuse one compiled (empty) list. */
const NO_LINKIFIERS: readonly Linkifier[] = Object.freeze([]);

/** Builds a context from plain lists (tests and callers that already hold the rows). */
export function renderContextFrom(users: RenderUser[] = [], init: RenderContextInit = {}): RenderContext {
  const byName = new Map<string, RenderUser[]>();
  const byId = new Map<number, RenderUser>();
  for (const u of [...users, ...(init.users ?? [])]) {
    if (byId.has(u.id)) continue;
    byId.set(u.id, u);
    const key = u.full_name.toLowerCase();
    const list = byName.get(key);
    if (list) list.push(u);
    else byName.set(key, [u]);
  }
  return {
    byName,
    byId,
    groupsByName: new Map((init.groups ?? []).map((g) => [g.name.toLowerCase(), g])),
    streamsByName: new Map((init.streams ?? []).map((s) => [s.name.toLowerCase(), s])),
    linkifiers: compileLinkifiers(init.linkifiers ?? NO_LINKIFIERS),
    realmEmoji: new Map((init.realmEmoji ?? []).map((e) => [e.name, e])),
    translateEmoticons: init.translateEmoticons ?? false,
    realmUrl: init.realmUrl ? init.realmUrl.replace(/\/+$/, '') : null,
    inlineImagePreview: init.inlineImagePreview ?? true,
    defaultCodeBlockLanguage: init.defaultCodeBlockLanguage ?? '',
    camo: init.camo ?? null,
  };
}

/**
 * Per-message facts that do not depend on the content: the sender's and the organization's
 * settings and the organization's linkifiers. All required, so no caller renders without them:
 * build them with renderOptionsFor (render-options.ts).
 */
export interface RenderOptions {
  translateEmoticons: boolean;
  realmUrl: string | null;
  inlineImagePreview: boolean;
  defaultCodeBlockLanguage: string;
  /** In the order they apply (sort_order, id); compiled once per list (compileLinkifiers memoizes). */
  linkifiers: readonly Linkifier[];
  /** The server's image proxy (video previews point through it); absent or null: none. */
  camo?: { uri: string; key: string } | null;
}

// Syntax that can reference rows. Code spans are not excluded: a false positive only costs a small query.
const USER_MENTION = /@_?\*\*([^*\n]+)\*\*/g;
const GROUP_MENTION = /@_?\*([^*\n]+)\*/g;
const CHANNEL_LINK = /#\*\*([^*\n]+)\*\*/g;
const EMOJI_NAME = /:([\w+-]+):/g;

function captures(re: RegExp, content: string): string[] {
  return [...content.matchAll(re)].map((m) => m[1]);
}

/**
 * A few queries, each bounded by what the content can reference: users named in
 * mentions (by lower-cased name or by |id), named groups, channels. Content without the syntax
 * issues none.
 */
export async function loadRenderContext(tx: Tx, realmId: number, content: string, opts: RenderOptions): Promise<RenderContext> {
  const init: RenderContextInit = { ...opts };
  if (content.includes('@')) {
    const mentioned = captures(USER_MENTION, content);
    const ids = new Set<number>();
    const names = new Set<string>();
    for (const m of mentioned) {
      const bar = m.lastIndexOf('|');
      if (bar >= 0 && /^\d+$/.test(m.slice(bar + 1).trim())) ids.add(Number(m.slice(bar + 1).trim()));
      else names.add(m.trim());
    }
    if (ids.size || names.size) {
      const lower = [...names].map((n) => n.toLowerCase());
      const exact = [...names];
      init.users = await tx
        .selectFrom('users')
        .select(['id', 'full_name'])
        .where('realm_id', '=', realmId)
        .where('is_active', '=', 1)
        .where((eb) =>
          eb.or([
            ...(ids.size ? [eb('id', 'in', [...ids])] : []),
            ...(names.size ? [eb(eb.fn('lower', ['full_name']), 'in', lower), eb('full_name', 'in', exact)] : []),
          ]),
        )
        .execute();
    }
    const groupNames = captures(GROUP_MENTION, content)
      .filter((n) => !n.startsWith('*'))
      .map((n) => n.trim());
    if (groupNames.length) {
      const rows = await tx
        .selectFrom('user_groups')
        .select(['id', 'name'])
        .where('realm_id', '=', realmId)
        .where('deactivated', '=', 0)
        .where('name', 'is not', null)
        .where((eb) => eb.or([eb(eb.fn('lower', ['name']), 'in', groupNames.map((n) => n.toLowerCase())), eb('name', 'in', groupNames)]))
        .execute();
      init.groups = rows.map((r) => ({ id: r.id, name: r.name! }));
    }
  }
  // Custom emoji: only names the content writes as :name:.
  const emojiNames = [...new Set(captures(EMOJI_NAME, content))];
  if (emojiNames.length) {
    const rows = await tx.selectFrom('realm_emoji').select(['id', 'name', 'realm_id', 'file_name']).where('realm_id', '=', realmId).where('deactivated', '=', 0).where('name', 'in', emojiNames).execute();
    init.realmEmoji = rows.map((r) => ({ id: String(r.id), name: r.name, url: emojiUrl(r) }));
  }
  if (content.includes('#**')) {
    const keys = [...new Set(captures(CHANNEL_LINK, content).map((s) => s.split('>')[0].trim().toLowerCase()))];
    if (keys.length) init.streams = await tx.selectFrom('streams').select(['id', 'name']).where('realm_id', '=', realmId).where('name_key', 'in', keys).execute();
  }
  return renderContextFrom([], init);
}
