// Emoji reactions on a message: POST and DELETE /messages/{message_id}/reactions.
import type { RouteList } from '../http/router.js';
import { endpoint } from '../http/endpoint.js';
import { badRequest } from '../core/api-error.js';
import { missing } from '../core/params.js';
import { Type, id, str } from '../core/param-types.js';
import { doAddReaction, doRemoveReaction } from '../actions/reactions.js';
import { loadCustomEmoji, parseReactionType, resolveEmojiForAdd, resolveEmojiForRemove } from '../lib/emoji/resolve.js';

const path = { message_id: id({ invalid: () => badRequest('Invalid message(s)') }) };
const emoji = {
  emoji_name: str({ description: 'The emoji name (a custom emoji by its name, a unicode one by any of its names).' }),
  emoji_code: str({ description: 'Which emoji exactly: the unicode code points, or the custom emoji ID.' }),
  reaction_type: str({ description: 'unicode_emoji, realm_emoji or service_extra_emoji (zulip_extra_emoji is accepted).' }),
};

const addReaction = endpoint({
  summary: 'Add an emoji reaction',
  path,
  params: emoji,
  response: Type.Object({}),
  run: async (req, a) => {
    const type = parseReactionType(a.reaction_type);
    if (a.emoji_name === undefined) {
      if (a.emoji_code !== undefined || type !== undefined) throw badRequest('Client must pass emoji_name if they pass either emoji_code or reaction_type.');
      throw missing('emoji_name');
    }
    const custom = await req.app.store.read((tx) => loadCustomEmoji(tx, req.realm.id));
    await doAddReaction(req.app, req.realm, req.user, a.message_id, resolveEmojiForAdd(a.emoji_name, a.emoji_code, type, custom));
    return {};
  },
});

const removeReaction = endpoint({
  summary: 'Remove an emoji reaction',
  path,
  params: emoji,
  response: Type.Object({}),
  run: async (req, a) => {
    const custom = await req.app.store.read((tx) => loadCustomEmoji(tx, req.realm.id));
    const { emojiCode, reactionType } = resolveEmojiForRemove(a.emoji_name, a.emoji_code, parseReactionType(a.reaction_type), custom);
    await doRemoveReaction(req.app, req.realm, req.user, a.message_id, emojiCode, reactionType);
    return {};
  },
});

export const routes: RouteList = [['messages/{message_id:int}/reactions', { POST: addReaction, DELETE: removeReaction }]];
