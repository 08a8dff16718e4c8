// Unauthenticated server information (GET /server_settings) and JWT login (POST /jwt/fetch_api_key).
import { createHash } from 'node:crypto';
import type { RouteList } from '../http/router.js';
import { rateLimited } from '../http/handlers.js';
import { endpoint } from '../http/endpoint.js';
import { Type, bool, loose, str } from '../core/param-types.js';
import { ApiError, badRequest } from '../core/api-error.js';
import { FEATURE_LEVEL, SERVICE_VERSION } from '../models/limits.js';
import { realmSettings } from '../lib/realm-settings.js';
import { realmUrl } from '../lib/state/realm.js';
import { renderMessage } from '../lib/markdown/index.js';
import { renderContextFrom } from '../lib/markdown/context.js';
import { JwtError, verifyJwt } from '../lib/jwt.js';
import { canSeeDeliveryEmail, userByEmail } from '../lib/users.js';
import { presentUser } from '../presenters/user.js';
import { doRecordLogin } from '../actions/user-admin.js';

/**
 * authentication_methods: the original's keys, then the spec's neutral names for the same six
 * external providers. Parley has password (email) login only; JWT is not one of these keys.
 */
const EXTERNAL_PROVIDERS: [original: string, neutral: string][] = [
  ['github', 'provider_a'],
  ['azuread', 'provider_b'],
  ['gitlab', 'provider_c'],
  ['apple', 'provider_d'],
  ['google', 'provider_e'],
  ['discord', 'provider_f'],
];

export function authenticationMethods(): Record<string, boolean> {
  const out: Record<string, boolean> = { password: true, dev: false, email: true, ldap: false, remoteuser: false, saml: false, 'openid connect': false };
  for (const [original, neutral] of EXTERNAL_PROVIDERS) {
    out[original] = false;
    out[neutral] = false;
  }
  return out;
}

const serverSettings = endpoint({
  summary: 'Get server settings',
  auth: 'none',
  response: Type.Object({
    authentication_methods: Type.Record(Type.String(), Type.Boolean()),
    external_authentication_methods: Type.Array(loose(Type.Object({ name: Type.String() }))),
    service_feature_level: Type.Integer(),
    service_version: Type.String(),
    service_merge_base: Type.String(),
    zulip_feature_level: Type.Integer(),
    zulip_version: Type.String(),
    zulip_merge_base: Type.String(),
    push_notifications_enabled: Type.Boolean(),
    is_incompatible: Type.Boolean(),
    email_auth_enabled: Type.Boolean(),
    require_email_format_usernames: Type.Boolean(),
    realm_uri: Type.String(),
    realm_url: Type.String(),
    realm_name: Type.String(),
    realm_icon: Type.String(),
    realm_description: Type.String(),
    realm_web_public_access_enabled: Type.Boolean(),
  }),
  run: async (req) => {
    const realm = req.realm;
    const url = realmUrl(req.app.config.externalUrl, realm.string_id);
    return {
      authentication_methods: authenticationMethods(),
      external_authentication_methods: [],
      service_feature_level: FEATURE_LEVEL,
      service_version: SERVICE_VERSION,
      service_merge_base: SERVICE_VERSION,
      zulip_feature_level: FEATURE_LEVEL,
      zulip_version: SERVICE_VERSION,
      zulip_merge_base: SERVICE_VERSION,
      push_notifications_enabled: false,
      is_incompatible: false,
      email_auth_enabled: true,
      require_email_format_usernames: true,
      realm_uri: url,
      realm_url: url,
      realm_name: realm.name,
      // No uploaded icons yet: the generated icon of the organization's name, as the original's default.
      realm_icon: `https://secure.gravatar.com/avatar/${createHash('md5').update(realm.string_id).digest('hex')}?d=identicon`,
      realm_description: realm.description ? renderMessage(realm.description, renderContextFrom([])).html : '',
      realm_web_public_access_enabled: realmSettings(realm).enable_spectator_access === true,
    };
  },
});

const jwtFetchApiKey = endpoint({
  summary: 'Fetch an API key with a JSON web token',
  auth: 'none',
  // The organization's JWT setting is checked before the token is read, as the original.
  check: (req) => {
    if (!req.app.config.jwtKeys.get(req.realm.string_id)) throw badRequest('JWT authentication is not enabled for this organization');
  },
  params: { token: str(), include_profile: bool({ default: false }) },
  response: Type.Object({ api_key: Type.String(), email: Type.String(), user: Type.Optional(loose(Type.Object({ user_id: Type.Integer(), email: Type.String(), full_name: Type.String() }))) }),
  run: async (req, a) => {
    const config = req.app.config.jwtKeys.get(req.realm.string_id);
    if (!config) throw badRequest('JWT authentication is not enabled for this organization');
    const token = a.token;
    if (!token) throw badRequest('No JSON web token passed in request');
    let claims: Record<string, unknown>;
    try {
      claims = await verifyJwt(token, config, req.app.clock.now());
    } catch (err) {
      if (err instanceof JwtError) throw badRequest(err.message);
      throw err;
    }
    if (typeof claims.email !== 'string') throw badRequest('No email specified in JSON web token claims');
    const found = await userByEmail(req.app.store.db, req.realm.id, claims.email);
    // The token names a real address: only the account with that delivery email matches.
    if (!found || found.delivery_email.toLowerCase() !== claims.email.trim().toLowerCase() || found.is_bot) {
      throw new ApiError('Your username or password is incorrect', 'AUTHENTICATION_FAILED', 401);
    }
    if (!found.is_active) throw new ApiError('Account is deactivated', 'USER_DEACTIVATED', 401);
    if (req.realm.deactivated) throw new ApiError('This organization has been deactivated', 'REALM_DEACTIVATED', 401);
    const user = await doRecordLogin(req.app, req.realm, found);
    const out: { api_key: string; email: string; user?: Record<string, unknown> } = { api_key: user.api_key, email: user.delivery_email };
    if (a.include_profile) out.user = presentUser(user, { clientGravatar: false, canSeeDeliveryEmail: canSeeDeliveryEmail(user, user), includeProfileData: false });
    return out;
  },
});

export const routes: RouteList = [
  ['server_settings', { GET: serverSettings }],
  ['jwt/fetch_api_key', { POST: rateLimited(jwtFetchApiKey, 'authentication') }],
];
