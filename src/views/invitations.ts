// POST/GET /invites, DELETE /invites/{invite_id}, and accepting an emailed invitation (GET/POST /invites/accept).
import type { RouteList } from '../http/router.js';
import { endpoint } from '../http/endpoint.js';
import { badRequest } from '../core/api-error.js';
import { invalidParam, vIntList } from '../core/params.js';
import { INT32_MAX, INT32_MIN, Type, bool, id, int, json, loose, str } from '../core/param-types.js';
import { ROLE_CODES } from '../models/roles.js';
import { doInvite, doRevokeInvite } from '../actions/invitations.js';
import { doAcceptInvite, inviteDetails } from '../actions/invitations-accept.js';
import { manageableInvites, manageableMultiuseInvites, presentInvite, presentMultiuseInvite, splitInviteeEmails } from '../lib/invitations.js';
import { multiuseLink } from '../actions/invitations-multiuse.js';

function vExpiry(value: unknown, name: string): number | null {
  if (value === null) return null;
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) throw invalidParam(`${name} is not an integer`, name);
  if (value <= 0) throw invalidParam(`Invalid ${name}`, name);
  return value;
}

/** IDs as sent: an unknown one (negative too) is the action's error, so only the 32-bit bound is the schema's. */
const Int32List = Type.Array(Type.Integer({ minimum: INT32_MIN, maximum: INT32_MAX }));

const inviteAsInt = int({ default: 400 });
/** A role code (src/models/roles.ts). */
const inviteAs: typeof inviteAsInt = {
  ...inviteAsInt,
  decode: (text, name) => {
    const v = inviteAsInt.decode(text, name);
    if (!ROLE_CODES.includes(v)) throw invalidParam('Invalid invite_as', name);
    return v;
  },
};

const sendInvites = endpoint({
  summary: 'Send invitations',
  params: {
    invitee_emails: str({ required: true, description: 'Addresses separated by commas or newlines.' }),
    // JSON null (never expires) differs from an absent parameter (the server default).
    invite_expires_in_minutes: json(Type.Union([Type.Integer({ minimum: 1, maximum: INT32_MAX }), Type.Null()]), { validate: vExpiry }),
    invite_as: inviteAs,
    stream_ids: json(Int32List, { required: true, validate: vIntList }),
    group_ids: json(Int32List, { validate: vIntList }),
    include_realm_default_subscriptions: bool({ default: false }),
    notify_referrer_on_join: bool({ default: true }),
    welcome_message_custom_text: str(),
  },
  response: Type.Object({}),
  run: async (req, a) => {
    await doInvite(req.app, req.realm, req.user, {
      emails: splitInviteeEmails(a.invitee_emails),
      expiresInMinutes: a.invite_expires_in_minutes,
      inviteAs: a.invite_as,
      streamIds: a.stream_ids,
      groupIds: a.group_ids ?? [],
      includeRealmDefaultSubscriptions: a.include_realm_default_subscriptions,
      notifyReferrerOnJoin: a.notify_referrer_on_join,
      welcomeMessageCustomText: a.welcome_message_custom_text ?? null,
    });
    return {};
  },
});

const Invite = loose(
  Type.Object({
    id: Type.Integer(),
    invited_by_user_id: Type.Integer(),
    invited: Type.Integer(),
    expiry_date: Type.Union([Type.Integer(), Type.Null()]),
    invited_as: Type.Integer(),
    email: Type.Optional(Type.String()),
    notify_referrer_on_join: Type.Optional(Type.Boolean()),
    link_url: Type.Optional(Type.String()),
    is_multiuse: Type.Boolean(),
  }),
);

const listInvites = endpoint({
  summary: 'Get all invitations',
  response: Type.Object({ invites: Type.Array(Invite) }),
  run: async (req) => {
    const now = req.app.clock.now();
    const [rows, links] = await req.app.store.read((tx) => Promise.all([manageableInvites(tx, req.realm, req.user, now), manageableMultiuseInvites(tx, req.realm, req.user, now)]));
    return { invites: [...rows.map(presentInvite), ...links.map((l) => presentMultiuseInvite(l, multiuseLink(req.app, req.realm, l.link_key)))] };
  },
});

const revokeInvite = endpoint({
  summary: 'Revoke an email invitation',
  path: { invite_id: id({ invalid: () => badRequest('No such invitation') }) },
  response: Type.Object({}),
  run: async (req, a) => {
    await doRevokeInvite(req.app, req.realm, req.user, a.invite_id);
    return {};
  },
});

/** The emailed link: the key is the credential, so no login. GET describes the invitation; POST signs up. */
const showInvite = endpoint({
  summary: 'Describe an emailed invitation',
  auth: 'none',
  params: { key: str({ required: true }) },
  response: loose(Type.Object({ email: Type.String(), realm_name: Type.String(), invited_as: Type.Integer(), expiry_date: Type.Union([Type.Integer(), Type.Null()]) })),
  run: async (req, a) => inviteDetails(req.app, req.realm, a.key.trim()),
});

const acceptInvite = endpoint({
  summary: 'Accept an emailed invitation',
  auth: 'none',
  params: { key: str({ required: true }), full_name: str({ required: true }), password: str({ required: true }) },
  response: Type.Object({ user_id: Type.Integer(), email: Type.String() }),
  run: async (req, a) => {
    const user = await doAcceptInvite(req.app, req.realm, a.key.trim(), a.full_name, a.password);
    return { user_id: user.id, email: user.email };
  },
});

export const routes: RouteList = [
  ['invites', { GET: listInvites, POST: sendInvites }],
  ['invites/accept', { GET: showInvite, POST: acceptInvite }],
  ['invites/{invite_id:int}', { DELETE: revokeInvite }],
];
