// Adding and removing emoji reactions, and the reaction events to everyone who has the message.
import type { AppContext } from '../context.js';
import type { Realm, User } from '../store/schema.js';
import type { Tx } from '../store/store.js';
import { writeWithEvents } from '../events/publish.js';
import { ApiError } from '../core/api-error.js';
import { accessMessage, HISTORICAL_FLAGS } from '../lib/messages/access.js';
import type { EmojiRef, ReactionType } from '../lib/emoji/resolve.js';

function reactionEvent(op: 'add' | 'remove', user: User, messageId: number, r: { emoji_name: string; emoji_code: string; reaction_type: string }) {
  return {
    type: 'reaction',
    op,
    message_id: messageId,
    emoji_name: r.emoji_name,
    emoji_code: r.emoji_code,
    reaction_type: r.reaction_type,
    user_id: user.id,
  };
}

async function audience(tx: Tx, messageId: number): Promise<number[]> {
  const rows = await tx.selectFrom('user_messages').select('user_id').where('message_id', '=', messageId).execute();
  return rows.map((r) => r.user_id);
}

export async function doAddReaction(app: AppContext, realm: Realm, user: User, messageId: number, emoji: EmojiRef): Promise<void> {
  await writeWithEvents(app, realm.id, async (tx) => {
    const { flags } = await accessMessage(tx, user, messageId);
    const existing = await tx
      .selectFrom('reactions')
      .select('id')
      .where('message_id', '=', messageId)
      .where('user_id', '=', user.id)
      .where('reaction_type', '=', emoji.reactionType)
      .where('emoji_code', '=', emoji.emojiCode)
      .executeTakeFirst();
    if (existing) throw new ApiError('Reaction already exists.', 'REACTION_ALREADY_EXISTS', 400);
    // Reacting to channel history adds the message to the reactor's own history, as starring does.
    if (flags === null) await tx.insertInto('user_messages').values({ user_id: user.id, message_id: messageId, flags: HISTORICAL_FLAGS }).execute();
    const row = { message_id: messageId, user_id: user.id, emoji_name: emoji.emojiName, emoji_code: emoji.emojiCode, reaction_type: emoji.reactionType };
    await tx.insertInto('reactions').values(row).execute();
    return { users: await audience(tx, messageId), event: reactionEvent('add', user, messageId, row) };
  }, (result) => [result]);
}

export async function doRemoveReaction(app: AppContext, realm: Realm, user: User, messageId: number, emojiCode: string, reactionType: ReactionType): Promise<void> {
  await writeWithEvents(app, realm.id, async (tx) => {
    await accessMessage(tx, user, messageId);
    const row = await tx
      .selectFrom('reactions')
      .selectAll()
      .where('message_id', '=', messageId)
      .where('user_id', '=', user.id)
      .where('reaction_type', '=', reactionType)
      .where('emoji_code', '=', emojiCode)
      .executeTakeFirst();
    if (!row) throw new ApiError("Reaction doesn't exist.", 'REACTION_DOES_NOT_EXIST', 400);
    await tx.deleteFrom('reactions').where('id', '=', row.id).execute();
    return { users: await audience(tx, messageId), event: reactionEvent('remove', user, messageId, row) };
  }, (result) => [result]);
}
