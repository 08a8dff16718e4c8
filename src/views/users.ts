// People and bots: GET /users, /users/me, /users/{id}, /users/{email}, POST /users, POST /bots, POST /fetch_api_key.
import type { RouteList } from '../http/router.js';
import type { Tx } from '../store/store.js';
import type { User } from '../store/schema.js';
import type { AuthedRequest } from '../http/types.js';
import { authed, noAuth, rateLimited } from '../http/handlers.js';
import { ApiError, badRequest } from '../core/api-error.js';
import { toInt, vIntList } from '../core/params.js';
import { Role } from '../models/roles.js';
import { presentUser } from '../presenters/user.js';
import { accessibleUserIds, canSeeDeliveryEmail, realmUsers, userByEmail, userById, userByEmailFor } from '../lib/users.js';
import { checkPassword } from '../lib/secrets.js';
import { doCreateUser } from '../actions/users.js';
import { doCreateBot } from '../actions/bots.js';
import { readServiceParams } from '../lib/outgoing-webhooks.js';
import { administrableBots, botConfigs } from '../lib/bots.js';
import { presentBot } from '../presenters/bot.js';
import { doRecordLogin } from '../actions/user-admin.js';
import { realmProfileData, type ProfileData } from '../lib/profile-fields.js';
import { maxMessageIdFor } from '../lib/messages/unread.js';

const getOwnUser = authed(async (req) => {
  const u = req.user;
  const max = await maxMessageIdFor(req.app.store.db, u.realm_id, u.id);
  // The own user has no bot fields (the original's GET /users/me leaves them out).
  const { bot_type: _botType, bot_owner_id: _botOwner, ...own } = presentUser(u, { clientGravatar: false, canSeeDeliveryEmail: true });
  return { ...own, max_message_id: max };
});

function presentFor(req: AuthedRequest, u: User, includeProfile: boolean, clientGravatar: boolean, profiles?: Map<number, ProfileData>): Record<string, unknown> {
  return presentUser(u, { clientGravatar, canSeeDeliveryEmail: canSeeDeliveryEmail(req.user, u), includeProfileData: includeProfile, profileData: profiles?.get(u.id) });
}

const getUsers = authed(async (req) => {
  const p = req.params;
  const clientGravatar = p.bool('client_gravatar', true);
  const includeProfile = p.bool('include_custom_profile_fields', false);
  const userIds = p.json('user_ids', vIntList);
  const members = await req.app.store.read(async (tx) => {
    const access = await accessibleUserIds(tx, req.realm, req.user);
    const rows = await realmUsers(tx, req.realm.id, userIds);
    if (userIds) {
      const found = new Set(rows.filter((r) => !access || access.has(r.id)).map((r) => r.id));
      for (const id of userIds) if (!found.has(id)) throw new ApiError(`Invalid user ID: ${id}`, 'BAD_REQUEST', 400);
    }
    const profiles = includeProfile ? await realmProfileData(tx, req.realm.id, userIds ?? undefined) : undefined;
    return rows.filter((r) => !access || access.has(r.id)).map((u) => presentFor(req, u, includeProfile, clientGravatar, profiles));
  });
  return { members };
});

async function getOne(req: AuthedRequest, find: (tx: Tx) => Promise<User | undefined>): Promise<Record<string, unknown>> {
  const p = req.params;
  const clientGravatar = p.bool('client_gravatar', true);
  const includeProfile = p.bool('include_custom_profile_fields', false);
  const user = await req.app.store.read(async (tx) => {
    const u = await find(tx);
    const access = u ? await accessibleUserIds(tx, req.realm, req.user) : null;
    if (!u || (access && !access.has(u.id))) throw badRequest('No such user');
    return { u, profiles: includeProfile ? await realmProfileData(tx, req.realm.id, [u.id]) : undefined };
  });
  return { user: presentFor(req, user.u, includeProfile, clientGravatar, user.profiles) };
}

const getUserById = authed(async (req) => {
  const id = toInt(req.pathParams.user_id, 'user_id');
  return getOne(req, (tx) => userById(tx, req.realm.id, id));
});

const getUserByEmail = authed(async (req) => {
  const email = req.pathParams.email;
  return getOne(req, (tx) => userByEmailFor(tx, req.user, email));
});

const createUser = authed(async (req) => {
  if (req.user.role > Role.ADMINISTRATOR) throw badRequest('Must be an organization administrator');
  const p = req.params;
  const email = p.reqStr('email');
  const password = p.reqStr('password');
  const fullName = p.reqStr('full_name');
  const user = await doCreateUser(req.app, req.realm, { email, password, fullName, role: Role.MEMBER, firstLoginPending: true });
  return { user_id: user.id };
});

const createBot = authed(async (req) => {
  const p = req.params;
  const fullName = p.reqStr('full_name');
  const shortName = p.reqStr('short_name');
  const botType = p.int('bot_type') ?? 1;
  const service = readServiceParams(p, botType);
  const bot = await doCreateBot(req.app, req.realm, req.user, { fullName, shortName, botType, service });
  return { user_id: bot.id, api_key: bot.api_key, avatar_url: presentUser(bot, { clientGravatar: false, canSeeDeliveryEmail: true }).avatar_url };
});

// GET /bots: the bots the caller may administer (all for administrators), with their keys and defaults.
const listBots = authed(async (req) => {
  const bots = await req.app.store.read(async (tx) => {
    const rows = await administrableBots(tx, req.realm, req.user);
    const configs = await botConfigs(tx, rows.map((b) => b.id));
    return rows.map((b) => ({
      ...presentBot(b, configs.get(b.id)),
      username: b.email,
      full_name: b.full_name,
      bot_type: b.bot_type,
      bot_owner_id: b.bot_owner_id,
      is_active: true,
      api_key: b.api_key,
      avatar_url: presentUser(b, { clientGravatar: false, canSeeDeliveryEmail: true }).avatar_url,
    }));
  });
  return { bots };
});

const fetchApiKey = noAuth(async (req) => {
  const username = req.params.reqStr('username');
  const password = req.params.reqStr('password');
  const limitKey = `${req.realm.id}:${username.trim().toLowerCase()}`;
  req.app.passwordLimiter.check(limitKey);
  const user = await userByEmail(req.app.store.db, req.realm.id, username);
  const ok = await checkPassword(user?.password_hash ?? null, password);
  if (!user || !ok) {
    req.app.passwordLimiter.record(limitKey);
    throw new ApiError('Your username or password is incorrect', 'AUTHENTICATION_FAILED', 401);
  }
  if (!user.is_active) throw new ApiError('Account is deactivated', 'USER_DEACTIVATED', 401);
  if (req.realm.deactivated) throw new ApiError('This organization has been deactivated', 'REALM_DEACTIVATED', 401);
  // The first login of an API-created account sets its date_joined (spec: User, FL 475).
  await doRecordLogin(req.app, req.realm, user);
  return { api_key: user.api_key, email: user.email, user_id: user.id };
});

export const routes: RouteList = [
  ['users/me', { GET: getOwnUser }],
  ['users', { GET: getUsers, POST: createUser }],
  ['users/{user_id:int}', { GET: getUserById }],
  ['users/{email}', { GET: getUserByEmail }],
  ['bots', { GET: listBots, POST: createBot }],
  ['fetch_api_key', { POST: rateLimited(fetchApiKey, 'authentication') }],
];
