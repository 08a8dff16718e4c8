// Emoji reactions on a message: POST and DELETE /messages/{message_id}/reactions.
import type { RouteList } from '../http/router.js';
import { authed } from '../http/handlers.js';
import { badRequest } from '../core/api-error.js';
import { doAddReaction, doRemoveReaction } from '../actions/reactions.js';
import { loadCustomEmoji, parseReactionType, resolveEmojiForAdd, resolveEmojiForRemove } from '../lib/emoji/resolve.js';

function messageIdOf(req: { pathParams: Record<string, string> }): number {
  const id = Number(req.pathParams.message_id);
  if (!Number.isSafeInteger(id)) throw badRequest('Invalid message(s)');
  return id;
}

const addReaction = authed(async (req) => {
  const p = req.params;
  const name = p.str('emoji_name');
  const code = p.str('emoji_code');
  const type = parseReactionType(p.str('reaction_type'));
  if (name === undefined) {
    if (code !== undefined || type !== undefined) throw badRequest('Client must pass emoji_name if they pass either emoji_code or reaction_type.');
    p.reqStr('emoji_name');
  }
  const custom = await req.app.store.read((tx) => loadCustomEmoji(tx, req.realm.id));
  await doAddReaction(req.app, req.realm, req.user, messageIdOf(req), resolveEmojiForAdd(name!, code, type, custom));
  return {};
});

const removeReaction = authed(async (req) => {
  const p = req.params;
  const custom = await req.app.store.read((tx) => loadCustomEmoji(tx, req.realm.id));
  const { emojiCode, reactionType } = resolveEmojiForRemove(p.str('emoji_name'), p.str('emoji_code'), parseReactionType(p.str('reaction_type')), custom);
  await doRemoveReaction(req.app, req.realm, req.user, messageIdOf(req), emojiCode, reactionType);
  return {};
});

export const routes: RouteList = [['messages/{message_id:int}/reactions', { POST: addReaction, DELETE: removeReaction }]];
