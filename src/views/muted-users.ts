// Muted users: POST and DELETE /users/me/muted_users/{muted_user_id}.
import type { RouteList } from '../http/router.js';
import { endpoint } from '../http/endpoint.js';
import { badRequest } from '../core/api-error.js';
import { Type, id } from '../core/param-types.js';
import { doMuteUser, doUnmuteUser } from '../actions/muted-users.js';

const mutedUserId = { muted_user_id: id({ invalid: () => badRequest('No such user') }) };

const mute = endpoint({
  summary: 'Mute a user',
  path: mutedUserId,
  response: Type.Object({}),
  run: async (req, a) => {
    await doMuteUser(req.app, req.realm, req.user, a.muted_user_id);
    return {};
  },
});

const unmute = endpoint({
  summary: 'Unmute a user',
  path: mutedUserId,
  response: Type.Object({}),
  run: async (req, a) => {
    await doUnmuteUser(req.app, req.realm, req.user, a.muted_user_id);
    return {};
  },
});

export const routes: RouteList = [['users/me/muted_users/{muted_user_id:int}', { POST: mute, DELETE: unmute }]];
