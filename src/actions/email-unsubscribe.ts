// One-click unsubscribe from a kind of email: the link's token names the user; the setting flips with its events.
import type { AppContext } from '../context.js';
import { UNSUBSCRIBE_KINDS, type UnsubscribeKind } from '../lib/mail/tokens.js';
import { doUpdateSettings } from './settings.js';
import { doUpdateSubscriptionProperties } from './subscription-properties.js';

export const isUnsubscribeKind = (k: string): k is UnsubscribeKind => Object.hasOwn(UNSUBSCRIBE_KINDS, k);

/** Turns the kind's setting off for the token's user; null when the link is unknown (or its user deactivated). */
export async function doUnsubscribeByToken(app: AppContext, kind: UnsubscribeKind, token: string): Promise<{ realmName: string; label: string } | null> {
  const db = app.store.db;
  const row = await db.selectFrom('email_unsubscribe_tokens').select('user_id').where('token', '=', token).where('kind', '=', kind).executeTakeFirst();
  if (!row) return null;
  const user = await db.selectFrom('users').selectAll().where('id', '=', row.user_id).where('is_active', '=', 1).executeTakeFirst();
  if (!user) return null;
  const realm = await db.selectFrom('realms').selectAll().where('id', '=', user.realm_id).executeTakeFirstOrThrow();
  const spec = UNSUBSCRIBE_KINDS[kind];
  await doUpdateSettings(app, realm, user, new Map([[spec.setting, false]]), null);
  if (kind === 'channel') {
    // Channels where the user turned email on one by one would keep mailing: those go off too.
    const on = await db.selectFrom('subscriptions').select('stream_id').where('user_id', '=', user.id).where('active', '=', 1).where('email_notifications', '=', 1).execute();
    if (on.length) await doUpdateSubscriptionProperties(app, realm, user, on.map((s) => ({ streamId: s.stream_id, property: 'email_notifications', value: false })));
  }
  return { realmName: realm.name, label: spec.label };
}
