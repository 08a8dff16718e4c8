// Sending and revoking email invitations: the checks of POST /invites, the rows, and the mailed one-time links.
import { randomBytes } from 'node:crypto';
import type { AppContext } from '../context.js';
import type { Realm, User } from '../store/schema.js';
import { ApiError, badRequest } from '../core/api-error.js';
import { isAdminRole } from '../models/roles.js';
import { checkEmail } from './users.js';
import { canAddOthers } from './subscriptions-add.js';
import { accessStreamById } from '../lib/streams/access.js';
import { hasRealmPermission } from '../lib/groups.js';
import { realmUrl } from '../lib/state/realm.js';
import { canAddGroupMembers, INVITE_PENDING, INVITE_REVOKED, inviteGroups, inviteKeyHash, MAX_WELCOME_TEXT } from '../lib/invitations.js';

export interface InviteInput {
  emails: string[];
  /** undefined: the server default; null: never expires. */
  expiresInMinutes: number | null | undefined;
  inviteAs: number;
  streamIds: number[];
  groupIds: number[];
  includeRealmDefaultSubscriptions: boolean;
  notifyReferrerOnJoin: boolean;
  welcomeMessageCustomText: string | null;
}

type InviteError = [email: string, reason: string, deactivated: boolean];

const noSubscribeOthers = () => badRequest('You do not have permission to subscribe other users to channels.');

function invitationFailed(msg: string, errors: InviteError[], sent: boolean, dailyLimit = false): ApiError {
  return new ApiError(msg, 'INVITATION_FAILED', 400, { errors, sent_invitations: sent, daily_limit_reached: dailyLimit, license_limit_reached: false });
}

/** Checks everything that refuses the whole request (nothing is sent then); reusable links need `permission` instead. */
export async function checkInvite(app: AppContext, realm: Realm, user: User, input: Pick<InviteInput, 'inviteAs' | 'streamIds' | 'groupIds'>, permission = 'can_invite_users_group'): Promise<void> {
  await app.store.read(async (tx) => {
    if (!(await hasRealmPermission(tx, user, realm, permission))) throw badRequest('Insufficient permission');
    // Roles equal to or stricter than the inviter's own (larger codes are stricter).
    if (input.inviteAs < user.role) throw badRequest('Insufficient permission');
    if (input.streamIds.length && !isAdminRole(user.role) && !(await hasRealmPermission(tx, user, realm, 'can_add_subscribers_group'))) throw noSubscribeOthers();
    const defaults = new Set((await tx.selectFrom('default_streams').select('stream_id').where('realm_id', '=', realm.id).execute()).map((r) => r.stream_id));
    for (const id of input.streamIds) {
      let stream;
      try {
        stream = (await accessStreamById(tx, user, id)).stream;
      } catch {
        throw badRequest(`Invalid channel ID ${id}. No invites were sent.`);
      }
      if (stream.is_archived) throw badRequest(`Invalid channel ID ${id}. No invites were sent.`);
      // Organization defaults are allowed even without the per-channel permission (FL 342).
      if (!defaults.has(id) && !(await canAddOthers(tx, realm, user, stream))) throw noSubscribeOthers();
    }
    for (const g of await inviteGroups(tx, realm.id, input.groupIds)) {
      if (!(await canAddGroupMembers(tx, realm, user, g))) throw badRequest('Insufficient permission');
    }
  });
}

/** POST /invites: invites each address that has no account; the others are reported (INVITATION_FAILED). */
export async function doInvite(app: AppContext, realm: Realm, user: User, input: InviteInput): Promise<void> {
  if (!input.emails.length) throw badRequest('You must specify at least one email address.');
  const welcome = input.welcomeMessageCustomText;
  if (welcome !== null && [...welcome].length > MAX_WELCOME_TEXT) throw badRequest(`welcome_message_custom_text is too long (limit: ${MAX_WELCOME_TEXT} characters)`);
  await checkInvite(app, realm, user, input);

  const invalid: InviteError[] = [];
  for (const e of input.emails) {
    try {
      checkEmail(e);
    } catch {
      invalid.push([e, 'Invalid address.', false]);
    }
  }
  if (invalid.length) throw invitationFailed("Some emails did not validate, so we didn't send any invitations.", invalid, false);

  const now = app.clock.now();
  const minutes = input.expiresInMinutes === undefined ? app.config.invitationValidityMinutes : input.expiresInMinutes;
  const expiresAt = minutes === null ? null : now + minutes * 60;
  // Only administrators choose the welcome text; for others it is the organization default (null).
  const welcomeText = isAdminRole(user.role) ? welcome : null;

  const { result } = await app.store.write(async (tx) => {
    // PostgreSQL: concurrent invitations of one organization queue here, so the daily count is exact.
    if (app.store.dialect === 'postgres') await tx.selectFrom('realms').select('id').where('id', '=', realm.id).forUpdate().execute();
    const keys = input.emails.map((e) => e.toLowerCase());
    const existing = await tx.selectFrom('users').select(['email_key', 'is_active', 'is_imported_stub']).where('realm_id', '=', realm.id).where('email_key', 'in', keys).execute();
    const errors: InviteError[] = [];
    const invite: string[] = [];
    for (const e of input.emails) {
      const u = existing.find((x) => x.email_key === e.toLowerCase());
      // An imported stub account is invited to claim it: accepting sets its password (invitations-accept.ts).
      if (!u || (u.is_active && u.is_imported_stub)) invite.push(e);
      else if (u.is_active) errors.push([e, 'Already has an account.', false]);
      else errors.push([e, 'Account has been deactivated.', true]);
    }
    const sentToday = await tx
      .selectFrom('invitations')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('realm_id', '=', realm.id)
      .where('invited_at', '>', now - 86400)
      .executeTakeFirstOrThrow();
    if (Number(sentToday.n) + invite.length > app.config.invitationsPerDay) return { errors, sent: [] as { id: number; email: string; key: string }[], dailyLimit: true };
    const sent: { id: number; email: string; key: string }[] = [];
    for (const email of invite) {
      const key = randomBytes(24).toString('base64url');
      const row = await tx
        .insertInto('invitations')
        .values({
          realm_id: realm.id,
          email,
          email_key: email.toLowerCase(),
          key_hash: inviteKeyHash(key),
          invited_by_id: user.id,
          invited_at: now,
          expires_at: expiresAt,
          invited_as: input.inviteAs,
          stream_ids: JSON.stringify(input.streamIds),
          group_ids: JSON.stringify(input.groupIds),
          include_realm_default_subscriptions: input.includeRealmDefaultSubscriptions ? 1 : 0,
          notify_referrer_on_join: input.notifyReferrerOnJoin ? 1 : 0,
          welcome_message_custom_text: welcomeText,
          status: INVITE_PENDING,
          accepted_user_id: null,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      sent.push({ id: row.id, email, key });
    }
    return { errors, sent, dailyLimit: false };
  });

  if (result.dailyLimit) {
    throw invitationFailed('To protect users, Parley limits the number of invitations an organization can send in one day. Because the limit has been reached, no invitations were sent.', result.errors, false, true);
  }
  const errors = [...result.errors];
  let delivered = 0;
  for (const s of result.sent) {
    try {
      await app.mail.send(inviteMail(app, realm, user, s.email, s.key, expiresAt));
      delivered++;
    } catch {
      // An invitation nobody received must not stay valid (or count as pending).
      await app.store.write((tx) => tx.updateTable('invitations').set({ status: INVITE_REVOKED }).where('id', '=', s.id).execute());
      errors.push([s.email, 'Could not send the invitation email.', false]);
    }
  }
  if (errors.length) {
    const msg = delivered
      ? "Some of those addresses are already using Parley, so we didn't send them an invitation. We did send invitations to everyone else!"
      : "We weren't able to invite anyone.";
    throw invitationFailed(msg, errors, delivered > 0);
  }
}

export function inviteMail(app: AppContext, realm: Realm, inviter: User, email: string, key: string, expiresAt: number | null) {
  const base = realmUrl(app.config.externalUrl, realm.string_id);
  const expiry = expiresAt === null ? 'It does not expire.' : `It works once and expires on ${new Date(expiresAt * 1000).toUTCString()}.`;
  return {
    to: email,
    subject: `${inviter.full_name} invited you to join ${realm.name}`,
    text: [
      'Hi,',
      '',
      `${inviter.full_name} (${inviter.delivery_email}) invited you to join ${realm.name}, at ${base}.`,
      '',
      'To create your account, open this invitation link:',
      '',
      `${base}/api/v1/invites/accept?key=${key}`,
      '',
      `Apps accept it by sending the key with your full name and a password to POST ${base}/api/v1/invites/accept (parameters key, full_name, password).`,
      expiry,
    ].join('\n'),
  };
}

/** DELETE /invites/{id}: administrators revoke any pending invitation, others only their own. */
export async function doRevokeInvite(app: AppContext, realm: Realm, user: User, id: number): Promise<void> {
  await app.store.write(async (tx) => {
    const row = await tx.selectFrom('invitations').select(['id', 'invited_by_id', 'status']).where('realm_id', '=', realm.id).where('id', '=', id).executeTakeFirst();
    if (!row || row.status !== INVITE_PENDING) throw badRequest('No such invitation');
    if (!isAdminRole(user.role) && row.invited_by_id !== user.id) throw badRequest('Must be an organization administrator');
    await tx.updateTable('invitations').set({ status: INVITE_REVOKED }).where('id', '=', id).where('status', '=', INVITE_PENDING).execute();
  });
}
