// Typing notifications (composing a message, or editing one): checks, recipients, and the uncommitted events.
import type { AppContext } from '../context.js';
import type { Realm, User } from '../store/schema.js';
import type { Tx } from '../store/store.js';
import { badRequest } from '../core/api-error.js';
import { userSetting } from '../models/user-settings.js';
import { accessibleUserIds } from '../lib/users.js';
import { accessStreamById } from '../lib/streams/access.js';
import { accessMessage, checkCanSendToStream, isDbId } from '../lib/messages/access.js';
import { dmParticipantsByRecipient } from '../lib/messages/recipients.js';
import { normalizeTopicInput } from '../lib/messages/topic.js';
import { emptyTopicDisplayName } from '../lib/realm-settings.js';
import { publishCommitted, type Outgoing } from '../events/publish.js';

export type TypingOp = 'start' | 'stop';

type Person = Pick<User, 'id' | 'email' | 'is_active' | 'settings'>;

/** Who gets a typing event: active users who want typing notifications, never the typist. */
function notified(people: Person[], senderId: number): number[] {
  return people.filter((u) => u.id !== senderId && u.is_active === 1 && userSetting(u.settings, 'receives_typing_notifications') === true).map((u) => u.id);
}

function checkSenderSetting(sender: User, channel: boolean): void {
  if (channel && userSetting(sender.settings, 'send_stream_typing_notifications') !== true) {
    throw badRequest('User has disabled typing notifications for channel messages');
  }
  if (!channel && userSetting(sender.settings, 'send_private_typing_notifications') !== true) {
    throw badRequest('User has disabled typing notifications for direct messages');
  }
}

const PERSON_COLUMNS = ['id', 'email', 'is_active', 'settings'] as const;

/** Typing events change no stored state: they carry no commit stamp and are never replayed by register. */
function send(app: AppContext, realm: Realm, out: Outgoing): void {
  publishCommitted(app, realm.id, null, [out]);
}

/** Typing in a direct conversation with `to` (the typist is added to the recipients). */
export async function doTypingDirect(app: AppContext, realm: Realm, sender: User, to: number[], op: TypingOp): Promise<void> {
  checkSenderSetting(sender, false);
  if (!to.length) throw badRequest("Empty 'to' list");
  const ids = [...new Set(to)];
  const outOfRange = ids.find((id) => !isDbId(id));
  if (outOfRange !== undefined) throw badRequest(`Invalid user ID ${outOfRange}`);
  const people = await app.store.read(async (tx) => {
    const rows = await tx.selectFrom('users').select(PERSON_COLUMNS).where('realm_id', '=', realm.id).where('id', 'in', ids).execute();
    const found = new Set(rows.map((r) => r.id));
    const bad = ids.find((id) => !found.has(id));
    if (bad !== undefined) throw badRequest(`Invalid user ID ${bad}`);
    await checkCanReach(tx, realm, sender, ids);
    return rows;
  });
  if (!people.some((p) => p.id === sender.id)) people.push(sender);
  people.sort((a, b) => a.id - b.id);
  const event = {
    type: 'typing',
    op,
    message_type: 'direct',
    sender: { user_id: sender.id, email: sender.email },
    recipients: people.map((p) => ({ user_id: p.id, email: p.email })),
  };
  send(app, realm, { users: notified(people, sender.id), event });
}

/** A restricted user (limited can_access_all_users_group) may only signal people they can see. */
async function checkCanReach(tx: Tx, realm: Realm, sender: User, ids: number[]): Promise<void> {
  const reachable = await accessibleUserIds(tx, realm, sender);
  if (reachable && ids.some((id) => !reachable.has(id))) throw badRequest('You do not have permission to access some of the recipients.');
}

/** Typing in a channel topic: to its subscribers, for clients declaring stream_typing_notifications. */
export async function doTypingChannel(app: AppContext, realm: Realm, sender: User, streamId: number, rawTopic: string, op: TypingOp): Promise<void> {
  checkSenderSetting(sender, true);
  const topic = normalizeTopicInput(rawTopic, realm);
  const subscribers = await app.store.read(async (tx) => {
    if (!isDbId(streamId)) throw badRequest('Invalid channel ID');
    const { stream } = await accessStreamById(tx, sender, streamId);
    // Only someone who could send the message may announce composing it.
    await checkCanSendToStream(tx, sender, stream);
    return tx
      .selectFrom('subscriptions')
      .innerJoin('users', 'users.id', 'subscriptions.user_id')
      .select(['users.id', 'users.email', 'users.is_active', 'users.settings'])
      .where('subscriptions.stream_id', '=', stream.id)
      .where('subscriptions.active', '=', 1)
      .where('users.is_active', '=', 1)
      .execute();
  });
  const event = {
    type: 'typing',
    op,
    message_type: 'stream',
    sender: { user_id: sender.id, email: sender.email },
    stream_id: streamId,
    topic,
    __empty_topic_name: emptyTopicDisplayName(realm),
  };
  send(app, realm, { users: notified(subscribers, sender.id), event, requiresCapability: 'stream_typing_notifications' });
}

/** Typing an edit of a message: to everyone who has the message (who would see the edit). */
export async function doTypingEditMessage(app: AppContext, realm: Realm, sender: User, messageId: number, op: TypingOp): Promise<void> {
  const { event, people } = await app.store.read(async (tx) => {
    const { message, stream } = await accessMessage(tx, sender, messageId);
    checkSenderSetting(sender, stream !== null);
    const people = await tx
      .selectFrom('user_messages')
      .innerJoin('users', 'users.id', 'user_messages.user_id')
      .select(['users.id', 'users.email', 'users.is_active', 'users.settings'])
      .where('user_messages.message_id', '=', message.id)
      .where('users.is_active', '=', 1)
      .execute();
    const recipient = stream
      ? { type: 'channel', channel_id: stream.id, topic: message.topic }
      : { type: 'direct', user_ids: [...((await dmParticipantsByRecipient(tx, [message.recipient_id])).get(message.recipient_id) ?? [])].sort((a, b) => a - b) };
    return { event: { type: 'typing_edit_message', op, sender_id: sender.id, message_id: message.id, recipient }, people };
  });
  send(app, realm, { users: notified(people, sender.id), event });
}
