// The caller's own account and one user's presence: DELETE /users/me, POST /users/me/api_key/regenerate,
// GET /users/{user_id_or_email}/presence.
import type { RouteList } from '../http/router.js';
import { endpoint } from '../http/endpoint.js';
import { badRequest } from '../core/api-error.js';
import { Type, str } from '../core/param-types.js';
import { accessibleUserIds, userByEmailFor, userById } from '../lib/users.js';
import { onePresence } from '../lib/presence.js';
import { doDeactivateOwnAccount, doRegenerateOwnApiKey } from '../actions/own-account.js';

const deactivateOwn = endpoint({
  summary: 'Deactivate own user',
  response: Type.Object({}),
  run: async (req) => {
    await doDeactivateOwnAccount(req.app, req.realm, req.user);
    return {};
  },
});

const regenerateKey = endpoint({
  summary: 'Regenerate your API key',
  response: Type.Object({ api_key: Type.String() }),
  run: async (req) => ({ api_key: await doRegenerateOwnApiKey(req.app, req.user) }),
});

const Legacy = Type.Object({ status: Type.String(), timestamp: Type.Integer() });

const userPresence = endpoint({
  summary: "Get a user's presence",
  path: { user_id_or_email: str({ invalid: () => badRequest('No such user') }) },
  response: Type.Object({
    server_timestamp: Type.Number(),
    presence: Type.Object({ active_timestamp: Type.Optional(Type.Integer()), idle_timestamp: Type.Optional(Type.Integer()), website: Legacy, aggregated: Legacy }),
  }),
  run: async (req, a) => {
    const key = a.user_id_or_email;
    const now = req.app.clock.now();
    const presence = await req.app.store.read(async (tx) => {
      // An ID when it is all digits, as the original tries int() first; otherwise an API email.
      const target = /^\d+$/.test(key) ? (Number(key) <= 2147483647 ? await userById(tx, req.realm.id, Number(key)) : undefined) : await userByEmailFor(tx, req.user, key);
      const access = target ? await accessibleUserIds(tx, req.realm, req.user) : null;
      if (!target || !target.is_active || (access && !access.has(target.id))) throw badRequest('No such user');
      if (target.is_bot) throw badRequest('Presence is not supported for bot users.');
      const p = await onePresence(tx, target.id, now);
      if (!p) throw badRequest(`No presence data for ${key}`);
      return p;
    });
    return { server_timestamp: now, presence: presence as never };
  },
});

export const routes: RouteList = [
  ['users/me', { DELETE: deactivateOwn }],
  ['users/me/api_key/regenerate', { POST: regenerateKey }],
  ['users/{user_id_or_email}/presence', { GET: userPresence }],
];
