// Message rows → MessageDicts, with a fixed number of queries for any batch: participants and
// senders, channels, reactions.
import type { Tx } from '../../store/store.js';
import type { Message, Realm, User } from '../../store/schema.js';
import type { DisplayRecipientUser, MessageDict, ReactionDict } from '../../presenters/message.js';
import { dmParticipantsByRecipient } from './recipients.js';
import { avatarInfo, type AvatarInfo } from '../../presenters/avatar.js';

export const MESSAGE_TYPE_STREAM = 1;
export const MESSAGE_TYPE_PRIVATE = 2;

/**
 * The message columns a MessageDict is built from. Loads select only these: every column costs
 * time in the driver's row objects, and the search flags, realm and topic key are never shown.
 */
export const DICT_COLUMNS = [
  'id',
  'type',
  'recipient_id',
  'stream_id',
  'sender_id',
  'topic',
  'content',
  'rendered_content',
  'date_sent',
  'sending_client',
  'last_edit_time',
  'last_moved_time',
  'edit_history',
  'is_me_message',
] as const satisfies readonly (keyof Message)[];

export type DictMessage = Pick<Message, (typeof DICT_COLUMNS)[number]>;

export async function buildMessageDicts(tx: Tx, realm: Pick<Realm, 'string_id'>, rows: DictMessage[]): Promise<MessageDict[]> {
  if (!rows.length) return [];
  const dmRecipients = rows.filter((r) => r.type === MESSAGE_TYPE_PRIVATE).map((r) => r.recipient_id);
  const participants = await dmParticipantsByRecipient(tx, dmRecipients);
  const userIds = new Set<number>(rows.map((r) => r.sender_id));
  for (const ids of participants.values()) for (const id of ids) userIds.add(id);
  const streamIds = [...new Set(rows.map((r) => r.stream_id).filter((s): s is number => s !== null))];
  const messageIds = rows.map((r) => r.id);
  const [users, streams, reactions] = await Promise.all([
    tx.selectFrom('users').select(['id', 'realm_id', 'email', 'delivery_email', 'full_name', 'avatar_source', 'avatar_version']).where('id', 'in', [...userIds]).execute(),
    streamIds.length ? tx.selectFrom('streams').select(['id', 'name']).where('id', 'in', streamIds).execute() : Promise.resolve([]),
    tx.selectFrom('reactions').selectAll().where('message_id', 'in', messageIds).orderBy('id').execute(),
  ]);
  const userMap = new Map(users.map((u) => [u.id, u]));
  // One avatar description per sender, shared by that sender's messages (and so their URL, in presentMessages).
  const avatars = new Map<number, AvatarInfo>();
  const avatarOf = (u: DictSender): AvatarInfo => {
    let a = avatars.get(u.id);
    if (!a) avatars.set(u.id, (a = avatarInfo(u)));
    return a;
  };
  const streamNames = new Map(streams.map((s) => [s.id, s.name]));
  const reactionsByMessage = new Map<number, ReactionDict[]>();
  for (const r of reactions) {
    let list = reactionsByMessage.get(r.message_id);
    if (!list) reactionsByMessage.set(r.message_id, (list = []));
    list.push({ emoji_name: r.emoji_name, emoji_code: r.emoji_code, reaction_type: r.reaction_type, user_id: r.user_id });
  }
  const displayUser = (id: number): DisplayRecipientUser => {
    const u = userMap.get(id);
    return { id, email: u?.email ?? '', full_name: u?.full_name ?? '', is_mirror_dummy: false };
  };
  return rows.map((m) => {
    const sender = userMap.get(m.sender_id)!;
    return messageDict(
      m,
      realm,
      sender,
      m.type === MESSAGE_TYPE_PRIVATE ? (participants.get(m.recipient_id) ?? [m.sender_id]).map(displayUser) : (streamNames.get(m.stream_id!) ?? ''),
      reactionsByMessage.get(m.id) ?? [],
      avatarOf(sender),
    );
  });
}

export type DictSender = Pick<User, 'id' | 'realm_id' | 'email' | 'delivery_email' | 'full_name' | 'avatar_source' | 'avatar_version'>;

/** One message row as a MessageDict, given what the row refers to (no queries). */
export function messageDict(
  m: DictMessage,
  realm: Pick<Realm, 'string_id'>,
  sender: DictSender,
  displayRecipient: MessageDict['display_recipient'],
  reactions: ReactionDict[],
  senderAvatar: AvatarInfo = avatarInfo(sender),
): MessageDict {
  const dict: MessageDict = {
    id: m.id,
    type: m.type === MESSAGE_TYPE_PRIVATE ? 'private' : 'stream',
    subject: m.type === MESSAGE_TYPE_PRIVATE ? '' : m.topic,
    content: m.content,
    rendered_content: m.rendered_content,
    client: m.sending_client,
    sender_id: m.sender_id,
    sender_email: sender.email,
    sender_full_name: sender.full_name,
    sender_realm_str: realm.string_id,
    sender_avatar: senderAvatar,
    display_recipient: displayRecipient,
    recipient_id: m.recipient_id,
    timestamp: m.date_sent,
    is_me_message: m.is_me_message === 1,
    reactions,
    submessages: [],
    topic_links: [],
  };
  if (m.stream_id !== null) dict.stream_id = m.stream_id;
  if (m.last_edit_time !== null) dict.last_edit_timestamp = m.last_edit_time;
  if (m.last_moved_time !== null) dict.last_moved_timestamp = m.last_moved_time;
  if (m.edit_history) dict.edit_history = JSON.parse(m.edit_history) as Record<string, unknown>[];
  return dict;
}
