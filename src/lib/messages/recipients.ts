// Direct-message recipients: resolving the `to` list, permission to reach them, and the one
// conversation (direct_message_groups row + recipient) per set of participants.
import type { Tx } from '../../store/store.js';
import type { Realm, User } from '../../store/schema.js';
import { badRequest } from '../../core/api-error.js';
import { accessibleUserIds } from '../users.js';
import { RECIPIENT_DM_GROUP } from '../streams-create.js';
import { isDbId } from './access.js';

/** The identity of a conversation: its participants' sorted IDs. */
export const dmKey = (ids: Iterable<number>): string => [...new Set(ids)].sort((a, b) => a - b).join(',');
export const idsFromKey = (key: string): number[] => (key ? key.split(',').map(Number) : []);

/** Looks up the recipients (IDs or emails) in the realm; returns every participant including the sender. */
export async function resolveDmParticipants(tx: Tx, realm: Realm, sender: User, to: number[] | string[]): Promise<User[]> {
  if (to.length === 0) throw badRequest('Message must have recipients');
  let users: User[];
  if (typeof to[0] === 'number') {
    const ids = [...new Set(to as number[])];
    const outOfRange = ids.find((id) => !isDbId(id));
    if (outOfRange !== undefined) throw badRequest(`Invalid user ID ${outOfRange}`);
    users = await tx.selectFrom('users').selectAll().where('realm_id', '=', realm.id).where('id', 'in', ids).execute();
    const found = new Set(users.map((u) => u.id));
    const bad = ids.find((id) => !found.has(id));
    if (bad !== undefined) throw badRequest(`Invalid user ID ${bad}`);
  } else {
    const keys = [...new Set((to as string[]).map((e) => e.trim().toLowerCase()).filter(Boolean))];
    if (!keys.length) throw badRequest('Message must have recipients');
    users = await tx.selectFrom('users').selectAll().where('realm_id', '=', realm.id).where('email_key', 'in', keys).execute();
    const found = new Set(users.map((u) => u.email_key));
    const bad = keys.find((k) => !found.has(k));
    if (bad !== undefined) throw badRequest(`Invalid email '${bad}'`);
  }
  for (const u of users) {
    if (!u.is_active && u.id !== sender.id) throw badRequest(`'${u.email}' is no longer using Parley.`);
  }
  const others = users.filter((u) => u.id !== sender.id);
  await checkCanReach(tx, realm, sender, others);
  return [sender, ...others];
}

/** A sender who may not see every user (a restricted guest) may message only people they share a channel with. */
async function checkCanReach(tx: Tx, realm: Realm, sender: User, others: User[]): Promise<void> {
  if (!others.length) return;
  const reachable = await accessibleUserIds(tx, realm, sender);
  if (reachable === null) return;
  if (others.some((o) => !reachable.has(o.id))) throw badRequest('You do not have permission to access some of the recipients.');
}

/** The recipient ID of an existing conversation among exactly these users, if any. */
export async function findDmRecipient(tx: Tx, realmId: number, userIds: number[]): Promise<number | undefined> {
  const row = await tx.selectFrom('direct_message_groups').select('recipient_id').where('realm_id', '=', realmId).where('user_ids_key', '=', dmKey(userIds)).executeTakeFirst();
  return row?.recipient_id;
}

/** The conversation's recipient ID, creating the conversation on first use. */
export async function getOrCreateDmRecipient(tx: Tx, realmId: number, userIds: number[]): Promise<number> {
  const key = dmKey(userIds);
  const existing = await findDmRecipient(tx, realmId, userIds);
  if (existing !== undefined) return existing;
  const recipient = await tx.insertInto('recipients').values({ type: RECIPIENT_DM_GROUP, type_id: 0 }).returning('id').executeTakeFirstOrThrow();
  // A concurrent sender may create the same conversation; the unique key makes one of them win.
  const group = await tx
    .insertInto('direct_message_groups')
    .values({ realm_id: realmId, user_ids_key: key, recipient_id: recipient.id })
    .onConflict((oc) => oc.columns(['realm_id', 'user_ids_key']).doNothing())
    .returning('id')
    .executeTakeFirst();
  if (!group) {
    await tx.deleteFrom('recipients').where('id', '=', recipient.id).execute();
    return (await findDmRecipient(tx, realmId, userIds))!;
  }
  await tx.updateTable('recipients').set({ type_id: group.id }).where('id', '=', recipient.id).execute();
  return recipient.id;
}

/** Participants of conversations by recipient ID (one query). */
export async function dmParticipantsByRecipient(tx: Tx, recipientIds: number[]): Promise<Map<number, number[]>> {
  const out = new Map<number, number[]>();
  const ids = [...new Set(recipientIds)];
  if (!ids.length) return out;
  const rows = await tx.selectFrom('direct_message_groups').select(['recipient_id', 'user_ids_key']).where('recipient_id', 'in', ids).execute();
  for (const r of rows) out.set(r.recipient_id, idsFromKey(r.user_ids_key));
  return out;
}
