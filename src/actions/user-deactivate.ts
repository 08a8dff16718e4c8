// Deactivating (DELETE /users/{id}) and reactivating users: owned bots first, optional deletions, events, queues, mail.
import type { AppContext } from '../context.js';
import type { DB, Realm, User } from '../store/schema.js';
import type { Transaction } from 'kysely';
import type { Tx } from '../store/store.js';
import type { Dialect } from '../store/dialect.js';
import { badRequest } from '../core/api-error.js';
import { Role, isAdminRole } from '../models/roles.js';
import { accessUserById } from '../lib/users.js';
import { streamPeerAudience } from '../lib/streams/access.js';
import { viewersWithAccess } from '../lib/user-access.js';
import { unindexMessages } from '../lib/messages/search.js';
import { emptyTopicDisplayName } from '../lib/realm-settings.js';
import { presentBot } from '../presenters/bot.js';
import { avatarPerson } from '../presenters/avatar.js';
import { writeWithEvents, to, type Outgoing } from '../events/publish.js';
import { refreshFirstMessageIds } from './messages-common.js';
import { isOnlyOwner, mustBeAdmin, mustBeOwner } from './user-admin.js';
import { setUserActive } from './user-active.js';

export interface DeactivationActions {
  delete_profile?: boolean;
  delete_public_channel_messages?: boolean;
  delete_private_channel_messages?: boolean;
  delete_direct_messages?: boolean;
}
export const DEACTIVATION_ACTIONS = ['delete_profile', 'delete_public_channel_messages', 'delete_private_channel_messages', 'delete_direct_messages'] as const;

/** The name a deleted profile shows. */
export const DELETED_USER_NAME = 'Deleted user';

/** Messages deleted per statement batch when an action removes a user's messages. */
const DELETE_BATCH = 500;

export async function doDeactivateUser(app: AppContext, realm: Realm, actor: User, userId: number, actions: DeactivationActions, comment: string | null): Promise<void> {
  if (!isAdminRole(actor.role)) throw mustBeAdmin();
  const { result } = await writeWithEvents(app, realm.id, async (tx) => {
    const target = await accessUserById(tx, realm.id, userId, { allowBots: false });
    if (target.role === Role.OWNER && actor.role !== Role.OWNER) throw mustBeOwner();
    if (await isOnlyOwner(tx, target)) throw badRequest('Cannot deactivate the only organization owner');
    const bots = await tx.selectFrom('users').selectAll().where('realm_id', '=', realm.id).where('bot_owner_id', '=', target.id).where('is_bot', '=', 1).where('is_active', '=', 1).orderBy('id').execute();
    const events: Outgoing[] = [];
    // Bots first, then their owner (the spec's order), each in the same transaction.
    for (const u of [...bots, target]) events.push(...(await deactivateOne(tx, app.store.dialect, realm, u, actions)));
    return { target, ids: [...bots.map((b) => b.id), target.id], events };
  }, (result) => result.events);
  for (const id of result.ids) {
    app.caches.userChanged(id);
    // Every node drops the deactivated accounts' event queues at once.
    app.bus.publishControl({ type: 'user_deactivated', userId: id });
  }
  if (comment !== null) await sendDeactivationEmail(app, realm, result.target, comment);
}

export async function deactivateOne(tx: Transaction<DB>, dialect: Dialect, realm: Realm, u: User, actions: DeactivationActions): Promise<Outgoing[]> {
  const events = await deleteSentMessages(tx, dialect, realm, u, actions);
  const set: Partial<User> = { is_active: 0 };
  if (actions.delete_profile) Object.assign(set, { full_name: DELETED_USER_NAME, avatar_source: 'J', avatar_version: u.avatar_version + 1, is_deleted: 1 });
  await setUserActive(tx, u.id, false, set);
  const after: User = { ...u, ...set };

  // The user leaves every subscriber list (lists hold active users only).
  const subs = await tx.selectFrom('subscriptions').innerJoin('streams', 'streams.id', 'subscriptions.stream_id').selectAll('streams').where('subscriptions.user_id', '=', u.id).where('subscriptions.active', '=', 1).execute();
  for (const s of subs) {
    const audience = (await streamPeerAudience(tx, s)).filter((id) => id !== u.id);
    events.push(to(audience, { type: 'subscription', op: 'peer_remove', stream_ids: [s.id], user_ids: [u.id] }));
  }
  // Restricted users who may not access the user keep their "Unknown user" placeholder unchanged;
  // group member lists, which hold active users only, lose the user for them too.
  const everyone = (await tx.selectFrom('users').select('id').where('realm_id', '=', realm.id).where('is_active', '=', 1).execute()).map((v) => v.id);
  const viewers = await viewersWithAccess(tx, realm, u.id, everyone);
  const blocked = everyone.filter((id) => !viewers.includes(id));
  if (blocked.length) for (const g of await namedGroupIds(tx, u.id)) events.push(to(blocked, { type: 'user_group', op: 'remove_members', group_id: g, user_ids: [u.id] }));
  if (actions.delete_profile) {
    events.push(to(viewers, { type: 'realm_user', op: 'update', person: { user_id: u.id, full_name: after.full_name } }));
    events.push(to(viewers, { type: 'realm_user', op: 'update', person: avatarPerson(after) }));
  }
  // is_deleted has no person form of its own; it travels with the deactivation (docs/decisions.md).
  events.push(to(viewers, { type: 'realm_user', op: 'update', person: { user_id: u.id, is_active: false, ...(after.is_deleted ? { is_deleted: true } : {}) } }));
  if (u.is_bot) events.push(to(await botAudience(tx, realm, u), { type: 'realm_bot', op: 'delete', bot: { user_id: u.id } }));
  return events;
}

/** The named groups the user is a direct member of: anonymous ones (group-setting values) are in no client's group list, and keep deactivated members. */
async function namedGroupIds(tx: Tx, userId: number): Promise<number[]> {
  const rows = await tx
    .selectFrom('user_group_members')
    .innerJoin('user_groups', 'user_groups.id', 'user_group_members.group_id')
    .select('user_group_members.group_id')
    .where('user_group_members.user_id', '=', userId)
    .where('user_groups.name', 'is not', null)
    .orderBy('user_group_members.group_id')
    .execute();
  return rows.map((r) => r.group_id);
}

/** Owners of a bot and the organization's administrators: who keeps it in realm_bots. */
async function botAudience(tx: Tx, realm: Realm, bot: User): Promise<number[]> {
  const admins = await tx.selectFrom('users').select('id').where('realm_id', '=', realm.id).where('is_active', '=', 1).where('role', '<=', Role.ADMINISTRATOR).execute();
  const ids = admins.map((a) => a.id);
  if (bot.bot_owner_id !== null) ids.push(bot.bot_owner_id);
  return [...new Set(ids)];
}

/** The deactivation actions' message deletions, with delete_message events to everyone who had them. */
async function deleteSentMessages(tx: Transaction<DB>, dialect: Dialect, realm: Realm, u: User, actions: DeactivationActions): Promise<Outgoing[]> {
  const wantPublic = actions.delete_public_channel_messages === true;
  const wantPrivate = actions.delete_private_channel_messages === true;
  const wantDirect = actions.delete_direct_messages === true;
  if (!wantPublic && !wantPrivate && !wantDirect) return [];
  const rows = await tx
    .selectFrom('messages')
    .leftJoin('streams', 'streams.id', 'messages.stream_id')
    .select(['messages.id', 'messages.stream_id', 'messages.topic', 'streams.invite_only'])
    .where('messages.sender_id', '=', u.id)
    .orderBy('messages.id')
    .execute();
  const doomed = rows.filter((m) => (m.stream_id === null ? wantDirect : m.invite_only ? wantPrivate : wantPublic));
  const events: Outgoing[] = [];
  const touchedStreams = new Set<number>();
  for (let i = 0; i < doomed.length; i += DELETE_BATCH) {
    const batch = doomed.slice(i, i + DELETE_BATCH);
    const ids = batch.map((m) => m.id);
    const holders = await tx.selectFrom('user_messages').select(['message_id', 'user_id']).where('message_id', 'in', ids).execute();
    // One event per conversation (channel and topic, or all direct messages), as deletions are announced.
    const groups = new Map<string, { streamId: number | null; topic: string; ids: number[]; users: Set<number> }>();
    for (const m of batch) {
      const key = m.stream_id === null ? 'dm' : `${m.stream_id}\u0000${m.topic}`;
      let g = groups.get(key);
      if (!g) groups.set(key, (g = { streamId: m.stream_id, topic: m.topic, ids: [], users: new Set() }));
      g.ids.push(m.id);
    }
    const keyOf = new Map(batch.map((m) => [m.id, m.stream_id === null ? 'dm' : `${m.stream_id}\u0000${m.topic}`]));
    for (const h of holders) groups.get(keyOf.get(h.message_id)!)!.users.add(h.user_id);
    await tx.deleteFrom('reactions').where('message_id', 'in', ids).execute();
    await tx.deleteFrom('user_messages').where('message_id', 'in', ids).execute();
    await unindexMessages(tx, dialect, ids);
    await tx.deleteFrom('messages').where('id', 'in', ids).execute();
    for (const g of groups.values()) {
      if (g.streamId === null) {
        events.push({ users: [...g.users], event: { type: 'delete_message', message_ids: g.ids, message_type: 'private' } });
      } else {
        touchedStreams.add(g.streamId);
        events.push({ users: [...g.users], event: { type: 'delete_message', message_ids: g.ids, message_type: 'stream', stream_id: g.streamId, topic: g.topic, __empty_topic_name: emptyTopicDisplayName(realm) } });
      }
    }
  }
  if (touchedStreams.size) events.push(...(await refreshFirstMessageIds(tx, [...touchedStreams])));
  return events;
}

export async function doReactivateUser(app: AppContext, realm: Realm, actor: User, userId: number): Promise<void> {
  if (!isAdminRole(actor.role)) throw mustBeAdmin();
  const { result } = await writeWithEvents(app, realm.id, async (tx) => {
    const target = await accessUserById(tx, realm.id, userId, { allowDeactivated: true });
    if (target.is_active) throw badRequest('User is already active');
    if (target.is_bot && target.bot_owner_id !== null) {
      const owner = await tx.selectFrom('users').select('is_active').where('id', '=', target.bot_owner_id).executeTakeFirst();
      if (owner && !owner.is_active) throw badRequest('Cannot reactivate a bot whose owner is deactivated');
    }
    await setUserActive(tx, target.id, true);
    const everyone = (await tx.selectFrom('users').select('id').where('realm_id', '=', realm.id).where('is_active', '=', 1).execute()).map((v) => v.id);
    const viewers = await viewersWithAccess(tx, realm, target.id, everyone);
    const events: Outgoing[] = [to(viewers, { type: 'realm_user', op: 'update', person: { user_id: target.id, is_active: true } })];
    // Group data and subscriber lists list active users only: the user comes back into them.
    for (const g of await namedGroupIds(tx, target.id)) events.push(to(everyone, { type: 'user_group', op: 'add_members', group_id: g, user_ids: [target.id] }));
    const subs = await tx.selectFrom('subscriptions').innerJoin('streams', 'streams.id', 'subscriptions.stream_id').selectAll('streams').where('subscriptions.user_id', '=', target.id).where('subscriptions.active', '=', 1).execute();
    for (const s of subs) {
      const audience = (await streamPeerAudience(tx, s)).filter((id) => id !== target.id);
      events.push(to(audience, { type: 'subscription', op: 'peer_add', stream_ids: [s.id], user_ids: [target.id] }));
    }
    if (target.is_bot) events.push(to(await botAudience(tx, realm, target), { type: 'realm_bot', op: 'add', bot: presentBot(target) }));
    return { id: target.id, events };
  }, (result) => result.events);
  app.caches.userChanged(result.id);
}

async function sendDeactivationEmail(app: AppContext, realm: Realm, user: User, comment: string): Promise<void> {
  // An imported stub's address came with the import and was never confirmed by its owner: no mail until they log in.
  if (user.is_imported_stub) return;
  const lines = [`Hi ${user.full_name},`, '', `Your account ${user.delivery_email} in the ${realm.name} organization has been deactivated by an administrator.`];
  if (comment.trim()) lines.push('', 'The administrator wrote:', '', comment);
  lines.push('', 'If you believe this is a mistake, contact the organization\'s administrators.');
  await app.mail.send({ to: user.delivery_email, subject: `Notification of account deactivation on ${realm.name}`, text: lines.join('\n') + '\n' }).catch(() => {
    // The deactivation is committed; a failed notice must not report it as failed.
  });
}
