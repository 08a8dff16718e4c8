// Reusable invitation links (POST /invites/multiuse, DELETE /invites/multiuse/{id}, signing up through one)
// and POST /invites/{id}/resend.
import type { RouteList } from '../http/router.js';
import { endpoint } from '../http/endpoint.js';
import { invalidParam, vIntList } from '../core/params.js';
import { IdList, Type, bool, id, int, json, str } from '../core/param-types.js';
import { ROLE_CODES } from '../models/roles.js';
import { doAcceptMultiuseInvite, doCreateMultiuseInvite, doResendInvite, doRevokeMultiuseInvite, multiuseDetails } from '../actions/invitations-multiuse.js';
import { badRequest } from '../core/api-error.js';

/** Minutes, or JSON null for a link that never expires. */
function vExpiry(value: unknown, name: string): number | null {
  if (value === null) return null;
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) throw invalidParam(`${name} is not an integer`, name);
  if (value <= 0) throw invalidParam(`Invalid ${name}`, name);
  return value;
}

const create = endpoint({
  summary: 'Create a reusable invitation link',
  params: {
    invite_expires_in_minutes: json(Type.Union([Type.Integer({ minimum: 1 }), Type.Null()]), { validate: vExpiry, description: 'JSON null: never expires; absent: the server default.' }),
    invite_as: int({ default: 400 }),
    stream_ids: json(IdList, { validate: vIntList }),
    group_ids: json(IdList, { validate: vIntList }),
    include_realm_default_subscriptions: bool({ default: false }),
    welcome_message_custom_text: str(),
  },
  response: Type.Object({ invite_link: Type.String() }),
  run: async (req, a) => {
    if (!ROLE_CODES.includes(a.invite_as)) throw invalidParam('Invalid invite_as', 'invite_as');
    const link = await doCreateMultiuseInvite(req.app, req.realm, req.user, {
      expiresInMinutes: a.invite_expires_in_minutes,
      inviteAs: a.invite_as,
      streamIds: a.stream_ids ?? [],
      groupIds: a.group_ids ?? [],
      includeRealmDefaultSubscriptions: a.include_realm_default_subscriptions,
      welcomeMessageCustomText: a.welcome_message_custom_text ?? null,
    });
    return { invite_link: link };
  },
});

const inviteId = { invite_id: id({ invalid: () => badRequest('No such invitation') }) };

const revoke = endpoint({
  summary: 'Revoke a reusable invitation link',
  path: inviteId,
  response: Type.Object({}),
  run: async (req, a) => {
    await doRevokeMultiuseInvite(req.app, req.realm, req.user, a.invite_id);
    return {};
  },
});

const resend = endpoint({
  summary: 'Resend an email invitation',
  path: inviteId,
  response: Type.Object({}),
  run: async (req, a) => {
    await doResendInvite(req.app, req.realm, req.user, a.invite_id);
    return {};
  },
});

// The link is the credential: no login. GET describes it; POST creates an account for the given address.
const show = endpoint({
  summary: 'Describe a reusable invitation link',
  auth: 'none',
  params: { key: str({ required: true }) },
  response: Type.Object({ realm_name: Type.String(), invited_as: Type.Integer(), expiry_date: Type.Union([Type.Integer(), Type.Null()]) }),
  run: (req, a) => multiuseDetails(req.app, req.realm, a.key.trim()) as Promise<{ realm_name: string; invited_as: number; expiry_date: number | null }>,
});

const accept = endpoint({
  summary: 'Sign up through a reusable invitation link',
  auth: 'none',
  params: { key: str({ required: true }), email: str({ required: true }), full_name: str({ required: true }), password: str({ required: true }) },
  response: Type.Object({ user_id: Type.Integer(), email: Type.String() }),
  run: async (req, a) => {
    const user = await doAcceptMultiuseInvite(req.app, req.realm, a.key.trim(), a.email, a.full_name, a.password);
    return { user_id: user.id, email: user.email };
  },
});

export const routes: RouteList = [
  ['invites/multiuse', { POST: create }],
  ['invites/multiuse/accept', { GET: show, POST: accept }],
  ['invites/multiuse/{invite_id:int}', { DELETE: revoke }],
  ['invites/{invite_id:int}/resend', { POST: resend }],
];
