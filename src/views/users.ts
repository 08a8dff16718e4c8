// People and bots: GET /users, /users/me, /users/{id}, POST /users, POST /bots, POST /fetch_api_key.
import type { RouteList } from '../http/routes.js';
import { authed, noAuth } from '../http/handlers.js';
import { ApiError } from '../http/errors.js';
import { presentUser } from '../presenters/user.js';
import { canSeeDeliveryEmail, userByEmail } from '../lib/users.js';
import { checkPassword } from '../lib/secrets.js';

const getOwnUser = authed(async (req) => {
  const u = req.user;
  return { ...presentUser(u, { clientGravatar: false, canSeeDeliveryEmail: true }), max_message_id: -1 };
});

const fetchApiKey = noAuth(async (req) => {
  const username = req.params.reqStr('username');
  const password = req.params.reqStr('password');
  const user = await userByEmail(req.app.store.db, req.realm.id, username);
  const ok = await checkPassword(user?.password_hash ?? null, password);
  if (!user || !ok) throw new ApiError('Your username or password is incorrect', 'AUTHENTICATION_FAILED', 401);
  if (!user.is_active) throw new ApiError('Account is deactivated', 'USER_DEACTIVATED', 401);
  if (req.realm.deactivated) throw new ApiError('This organization has been deactivated', 'REALM_DEACTIVATED', 401);
  return { api_key: user.api_key, email: user.email, user_id: user.id };
});

void canSeeDeliveryEmail;

export const routes: RouteList = [
  ['users/me', { GET: getOwnUser }],
  ['fetch_api_key', { POST: fetchApiKey }],
];
