// Who may edit a message's content, move it between topics or channels, or delete it, and until when.
import type { Tx } from '../../store/store.js';
import type { Message, Realm, Stream, User } from '../../store/schema.js';
import { badRequest } from '../../core/api-error.js';
import { isModeratorOrAbove } from '../../models/roles.js';
import { realmSettings } from '../realm-settings.js';
import { isUserInGroup } from '../groups.js';
import { hasStreamPermission } from './access.js';

/** Grace period after a limit, so an edit started just in time still succeeds. */
const GRACE_SECS = 10;

async function inRealmGroup(tx: Tx, realm: Realm, user: User, setting: string): Promise<boolean> {
  const group = realmSettings(realm)[setting];
  return typeof group === 'number' && (await isUserInGroup(tx, user, group));
}

function pastLimit(limit: unknown, message: Message, now: number): boolean {
  return typeof limit === 'number' && limit > 0 && now - message.date_sent > limit + GRACE_SECS;
}

export function checkCanEditContent(realm: Realm, user: User, message: Message, now: number): void {
  const s = realmSettings(realm);
  if (s.allow_message_editing === false) throw badRequest('Your organization has turned off message editing');
  // Only the author may change what a message says, administrators included.
  if (message.sender_id !== user.id) throw badRequest("You don't have permission to edit this message");
  if (pastLimit(s.message_content_edit_limit_seconds, message, now)) throw badRequest('The time limit for editing this message has past');
}

export async function checkCanChangeTopic(tx: Tx, realm: Realm, user: User, message: Message, stream: Stream, resolveOnly: boolean, now: number): Promise<void> {
  const allowed = resolveOnly
    ? (await inRealmGroup(tx, realm, user, 'can_resolve_topics_group')) || (await hasStreamPermission(tx, user, stream, 'can_resolve_topics_group'))
    : (await inRealmGroup(tx, realm, user, 'can_move_messages_between_topics_group')) || (await hasStreamPermission(tx, user, stream, 'can_move_messages_within_channel_group'));
  if (!allowed) throw badRequest("You don't have permission to edit this message");
  if (!resolveOnly && !isModeratorOrAbove(user.role) && pastLimit(realmSettings(realm).move_messages_within_stream_limit_seconds, message, now)) {
    throw badRequest("The time limit for editing this message's topic has passed");
  }
}

export async function checkCanMoveChannel(tx: Tx, realm: Realm, user: User, message: Message, stream: Stream, now: number): Promise<void> {
  const allowed = (await inRealmGroup(tx, realm, user, 'can_move_messages_between_channels_group')) || (await hasStreamPermission(tx, user, stream, 'can_move_messages_out_of_channel_group'));
  if (!allowed) throw badRequest("You don't have permission to move this message");
  if (!isModeratorOrAbove(user.role) && pastLimit(realmSettings(realm).move_messages_between_streams_limit_seconds, message, now)) {
    throw badRequest("The time limit for editing this message's channel has passed");
  }
}

export async function checkCanDelete(tx: Tx, realm: Realm, user: User, message: Message, stream: Stream | null, now: number): Promise<void> {
  if (await inRealmGroup(tx, realm, user, 'can_delete_any_message_group')) return;
  if (stream && (await hasStreamPermission(tx, user, stream, 'can_delete_any_message_group'))) return;
  const ownAllowed =
    message.sender_id === user.id && ((await inRealmGroup(tx, realm, user, 'can_delete_own_message_group')) || (stream !== null && (await hasStreamPermission(tx, user, stream, 'can_delete_own_message_group'))));
  if (!ownAllowed) throw badRequest("You don't have permission to delete this message");
  if (pastLimit(realmSettings(realm).message_content_delete_limit_seconds, message, now)) throw badRequest('The time limit for deleting this message has passed');
}
