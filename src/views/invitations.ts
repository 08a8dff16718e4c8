// POST/GET /invites, DELETE /invites/{invite_id}, and accepting an emailed invitation (GET/POST /invites/accept).
import type { RouteList } from '../http/router.js';
import { authed, noAuth } from '../http/handlers.js';
import { invalidParam, vIntList } from '../core/params.js';
import { ROLE_CODES } from '../models/roles.js';
import { doInvite, doRevokeInvite } from '../actions/invitations.js';
import { doAcceptInvite, inviteDetails } from '../actions/invitations-accept.js';
import { manageableInvites, presentInvite, splitInviteeEmails } from '../lib/invitations.js';

function vExpiry(value: unknown, name: string): number | null {
  if (value === null) return null;
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) throw invalidParam(`${name} is not an integer`, name);
  if (value <= 0) throw invalidParam(`Invalid ${name}`, name);
  return value;
}

const sendInvites = authed(async (req) => {
  const p = req.params;
  const emails = splitInviteeEmails(p.reqStr('invitee_emails'));
  const expires = p.json('invite_expires_in_minutes', vExpiry);
  const inviteAs = p.int('invite_as') ?? 400;
  if (!ROLE_CODES.includes(inviteAs)) throw invalidParam('Invalid invite_as', 'invite_as');
  await doInvite(req.app, req.realm, req.user, {
    emails,
    // JSON null (never expires) differs from an absent parameter (the server default).
    expiresInMinutes: p.has('invite_expires_in_minutes') ? expires : undefined,
    inviteAs,
    streamIds: p.reqJson('stream_ids', vIntList),
    groupIds: p.json('group_ids', vIntList) ?? [],
    includeRealmDefaultSubscriptions: p.bool('include_realm_default_subscriptions', false),
    notifyReferrerOnJoin: p.bool('notify_referrer_on_join', true),
    welcomeMessageCustomText: p.str('welcome_message_custom_text') ?? null,
  });
  return {};
});

const listInvites = authed(async (req) => {
  const rows = await req.app.store.read((tx) => manageableInvites(tx, req.realm, req.user, req.app.clock.now()));
  return { invites: rows.map(presentInvite) };
});

const revokeInvite = authed(async (req) => {
  await doRevokeInvite(req.app, req.realm, req.user, Number(req.pathParams.invite_id));
  return {};
});

/** The emailed link: the key is the credential, so no login. GET describes the invitation; POST signs up. */
const showInvite = noAuth(async (req) => inviteDetails(req.app, req.realm, req.params.reqStr('key').trim()));

const acceptInvite = noAuth(async (req) => {
  const p = req.params;
  const key = p.reqStr('key').trim();
  const fullName = p.reqStr('full_name');
  const password = p.reqStr('password');
  const user = await doAcceptInvite(req.app, req.realm, key, fullName, password);
  return { user_id: user.id, email: user.email };
});

export const routes: RouteList = [
  ['invites', { GET: listInvites, POST: sendInvites }],
  ['invites/accept', { GET: showInvite, POST: acceptInvite }],
  ['invites/{invite_id:int}', { DELETE: revokeInvite }],
];
