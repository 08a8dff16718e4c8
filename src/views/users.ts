// People and bots: GET /users, /users/me, /users/{id}, /users/{email}, POST /users, POST /bots, POST /fetch_api_key.
import type { RouteList } from '../http/router.js';
import type { Tx } from '../store/store.js';
import type { User } from '../store/schema.js';
import type { AuthedRequest } from '../http/types.js';
import { rateLimited } from '../http/handlers.js';
import { endpoint } from '../http/endpoint.js';
import { INT32_MAX, INT32_MIN, Type, bool, id, int, json, loose, str } from '../core/param-types.js';
import { ApiError, badRequest } from '../core/api-error.js';
import { vIntList } from '../core/params.js';
import { Role } from '../models/roles.js';
import { presentUser } from '../presenters/user.js';
import { accessibleUserIds, canSeeDeliveryEmail, realmUsers, userByEmail, userById, userByEmailFor } from '../lib/users.js';
import { checkPassword } from '../lib/secrets.js';
import { doCreateUser } from '../actions/users.js';
import { doCreateBot } from '../actions/bots.js';
import { jsonInteger, jsonString, serviceInput } from '../lib/outgoing-webhooks.js';
import { administrableBots, botConfigs } from '../lib/bots.js';
import { presentBot } from '../presenters/bot.js';
import { doRecordLogin } from '../actions/user-admin.js';
import { realmProfileData, type ProfileData } from '../lib/profile-fields.js';
import { maxMessageIdFor } from '../lib/messages/unread.js';

/** User IDs as sent: an unknown one (negative too) is named in the error, so only the 32-bit bound is the schema's. */
const Int32List = Type.Array(Type.Integer({ minimum: INT32_MIN, maximum: INT32_MAX }));

/** A user as presentUser builds it (the fields every user has). */
const UserSchema = loose(Type.Object({ user_id: Type.Integer(), email: Type.String(), full_name: Type.String(), is_active: Type.Boolean(), role: Type.Integer() }));

const getOwnUser = endpoint({
  summary: 'Get own user',
  response: Type.Composite([UserSchema, Type.Object({ max_message_id: Type.Integer() })]),
  run: async (req) => {
    const u = req.user;
    const max = await maxMessageIdFor(req.app.store.db, u.realm_id, u.id);
    // The own user has no bot fields (the original's GET /users/me leaves them out).
    const { bot_type: _botType, bot_owner_id: _botOwner, ...own } = presentUser(u, { clientGravatar: false, canSeeDeliveryEmail: true });
    return { ...own, max_message_id: max } as Record<string, unknown> & { max_message_id: number };
  },
});

function presentFor(req: AuthedRequest, u: User, includeProfile: boolean, clientGravatar: boolean, profiles?: Map<number, ProfileData>): Record<string, unknown> {
  return presentUser(u, { clientGravatar, canSeeDeliveryEmail: canSeeDeliveryEmail(req.user, u), includeProfileData: includeProfile, profileData: profiles?.get(u.id) });
}

const presentParams = {
  client_gravatar: bool({ default: true }),
  include_custom_profile_fields: bool({ default: false }),
};

const getUsers = endpoint({
  summary: 'Get all users',
  params: { ...presentParams, user_ids: json(Int32List, { validate: vIntList }) },
  response: Type.Object({ members: Type.Array(UserSchema) }),
  run: async (req, a) => {
    const userIds = a.user_ids;
    const members = await req.app.store.read(async (tx) => {
      const access = await accessibleUserIds(tx, req.realm, req.user);
      const rows = await realmUsers(tx, req.realm.id, userIds);
      if (userIds) {
        const found = new Set(rows.filter((r) => !access || access.has(r.id)).map((r) => r.id));
        for (const id of userIds) if (!found.has(id)) throw new ApiError(`Invalid user ID: ${id}`, 'BAD_REQUEST', 400);
      }
      const profiles = a.include_custom_profile_fields ? await realmProfileData(tx, req.realm.id, userIds ?? undefined) : undefined;
      return rows.filter((r) => !access || access.has(r.id)).map((u) => presentFor(req, u, a.include_custom_profile_fields, a.client_gravatar, profiles));
    });
    return { members };
  },
});

async function getOne(req: AuthedRequest, a: { client_gravatar: boolean; include_custom_profile_fields: boolean }, find: (tx: Tx) => Promise<User | undefined>): Promise<{ user: Record<string, unknown> }> {
  const includeProfile = a.include_custom_profile_fields;
  const user = await req.app.store.read(async (tx) => {
    const u = await find(tx);
    const access = u ? await accessibleUserIds(tx, req.realm, req.user) : null;
    if (!u || (access && !access.has(u.id))) throw badRequest('No such user');
    return { u, profiles: includeProfile ? await realmProfileData(tx, req.realm.id, [u.id]) : undefined };
  });
  return { user: presentFor(req, user.u, includeProfile, a.client_gravatar, user.profiles) };
}

const noSuchUser = () => badRequest('No such user');

const getUserById = endpoint({
  summary: 'Get a user',
  path: { user_id: id({ invalid: noSuchUser }) },
  params: presentParams,
  response: Type.Object({ user: UserSchema }),
  run: async (req, a) => getOne(req, a, (tx) => userById(tx, req.realm.id, a.user_id)),
});

const getUserByEmail = endpoint({
  summary: 'Get a user by email',
  path: { email: str({ invalid: noSuchUser }) },
  params: presentParams,
  response: Type.Object({ user: UserSchema }),
  run: async (req, a) => getOne(req, a, (tx) => userByEmailFor(tx, req.user, a.email)),
});

const createUser = endpoint({
  summary: 'Create a user',
  check: (req) => {
    if (req.user.role > Role.ADMINISTRATOR) throw badRequest('Must be an organization administrator');
  },
  params: { email: str({ required: true }), password: str({ required: true }), full_name: str({ required: true }) },
  response: Type.Object({ user_id: Type.Integer() }),
  run: async (req, a) => {
    // As in the original (since FL 36): administrators (people or bots) who also hold the special
    // permission the operator grants; it is checked once the parameters are, as there.
    if (!req.user.can_create_users) throw badRequest('User not authorized to create users');
    const user = await doCreateUser(req.app, req.realm, { email: a.email, password: a.password, fullName: a.full_name, role: Role.MEMBER, firstLoginPending: true });
    return { user_id: user.id };
  },
});

const createBot = endpoint({
  summary: 'Create a bot',
  params: {
    full_name: str({ required: true }),
    short_name: str({ required: true }),
    bot_type: int({ default: 1 }),
    payload_url: json(Type.String(), { validate: jsonString }),
    interface_type: json(Type.Integer(), { validate: jsonInteger }),
  },
  response: Type.Object({ user_id: Type.Integer(), api_key: Type.String(), avatar_url: Type.Union([Type.String(), Type.Null()]) }),
  run: async (req, a) => {
    const service = serviceInput(a.bot_type, a.payload_url, a.interface_type);
    const bot = await doCreateBot(req.app, req.realm, req.user, { fullName: a.full_name, shortName: a.short_name, botType: a.bot_type, service });
    return { user_id: bot.id, api_key: bot.api_key, avatar_url: presentUser(bot, { clientGravatar: false, canSeeDeliveryEmail: true }).avatar_url as string | null };
  },
});

// GET /bots: the bots the caller may administer (all for administrators), with their keys and defaults.
const listBots = endpoint({
  summary: 'Get the bots one may administer',
  response: Type.Object({
    bots: Type.Array(loose(Type.Object({ user_id: Type.Integer(), username: Type.String(), full_name: Type.String(), bot_type: Type.Integer(), bot_owner_id: Type.Union([Type.Integer(), Type.Null()]), is_active: Type.Boolean(), api_key: Type.String() }))),
  }),
  run: async (req) => {
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
  },
});

const fetchApiKey = endpoint({
  summary: 'Fetch an API key (production)',
  auth: 'none',
  params: { username: str({ required: true }), password: str({ required: true }) },
  response: Type.Object({ api_key: Type.String(), email: Type.String(), user_id: Type.Integer() }),
  run: async (req, a) => {
    const { username, password } = a;
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
  },
});

export const routes: RouteList = [
  ['users/me', { GET: getOwnUser }],
  ['users', { GET: getUsers, POST: createUser }],
  ['users/{user_id:int}', { GET: getUserById }],
  ['users/{email}', { GET: getUserByEmail }],
  ['bots', { GET: listBots, POST: createBot }],
  ['fetch_api_key', { POST: rateLimited(fetchApiKey, 'authentication') }],
];
