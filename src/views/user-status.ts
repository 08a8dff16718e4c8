// User status: POST /users/me/status, POST /users/{user_id}/status (administrators), GET /users/{user_id}/status.
import type { RouteList } from '../http/router.js';
import { endpoint } from '../http/endpoint.js';
import { badRequest } from '../core/api-error.js';
import { Type, bool, id, str } from '../core/param-types.js';
import { userStatus } from '../lib/user-status.js';
import { accessibleUserIds, userById } from '../lib/users.js';
import { doUpdateUserStatus } from '../actions/user-status.js';

const noSuchUser = () => badRequest('No such user');
const userId = { user_id: id({ invalid: noSuchUser }) };

const statusParams = {
  status_text: str({ description: 'Up to 60 characters; the empty string clears it.' }),
  emoji_name: str({ description: 'The empty string clears the emoji.' }),
  emoji_code: str(),
  reaction_type: str({ description: 'unicode_emoji, realm_emoji or service_extra_emoji (zulip_extra_emoji is accepted).' }),
};

const StatusSchema = Type.Object({
  away: Type.Optional(Type.Boolean()),
  status_text: Type.Optional(Type.String()),
  emoji_name: Type.Optional(Type.String()),
  emoji_code: Type.Optional(Type.String()),
  reaction_type: Type.Optional(Type.String()),
});

const updateOwn = endpoint({
  summary: 'Update your status',
  params: { ...statusParams, away: bool({ description: 'Deprecated: the inverse of the presence_enabled setting.' }) },
  response: Type.Object({}),
  run: async (req, a) => {
    await doUpdateUserStatus(req.app, req.realm, req.user, req.user.id, { away: a.away, statusText: a.status_text, emojiName: a.emoji_name, emojiCode: a.emoji_code, reactionType: a.reaction_type });
    return {};
  },
});

const updateOther = endpoint({
  summary: "Update a user's status (administrators)",
  path: userId,
  params: statusParams,
  response: Type.Object({}),
  run: async (req, a) => {
    await doUpdateUserStatus(req.app, req.realm, req.user, a.user_id, { statusText: a.status_text, emojiName: a.emoji_name, emojiCode: a.emoji_code, reactionType: a.reaction_type });
    return {};
  },
});

const getStatus = endpoint({
  summary: "Get a user's status",
  path: userId,
  response: Type.Object({ status: StatusSchema }),
  run: async (req, a) => {
    const status = await req.app.store.read(async (tx) => {
      const u = await userById(tx, req.realm.id, a.user_id);
      const access = u ? await accessibleUserIds(tx, req.realm, req.user) : null;
      if (!u || (access && !access.has(u.id))) throw noSuchUser();
      return userStatus(tx, u);
    });
    return { status };
  },
});

export const routes: RouteList = [
  ['users/me/status', { POST: updateOwn }],
  ['users/{user_id:int}/status', { GET: getStatus, POST: updateOther }],
];
