// Reusable invitation links (create, revoke, sign up through one), resending an email invitation, and invites_changed.
import { randomBytes } from 'node:crypto';
import type { AppContext } from '../context.js';
import type { Realm, User } from '../store/schema.js';
import type { Tx } from '../store/store.js';
import { badRequest } from '../core/api-error.js';
import { isAdminRole, Role } from '../models/roles.js';
import { realmUrl } from '../lib/state/realm.js';
import { INVITE_PENDING, INVITE_REVOKED, inviteKeyHash, MAX_WELCOME_TEXT } from '../lib/invitations.js';
import { writeWithEvents, to, type Outgoing } from '../events/publish.js';
import { checkInvite, inviteMail } from './invitations.js';
import { checkEmail } from './users.js';
import { MIN_PASSWORD_LENGTH, passwordTooLong } from './account.js';
import { doAcceptInvite } from './invitations-accept.js';

const noSuchInvitation = () => badRequest('No such invitation');

/** invites_changed goes to the organization's administrators and to the invitation's creator: those who list it. */
async function invitesChanged(tx: Tx, realmId: number, inviterId: number): Promise<Outgoing> {
  const admins = await tx.selectFrom('users').select('id').where('realm_id', '=', realmId).where('is_active', '=', 1).where('is_bot', '=', 0).where('role', '<=', Role.ADMINISTRATOR).execute();
  return to([...admins.map((a) => a.id), inviterId], { type: 'invites_changed' });
}

/** The link a reusable invitation is used through (GET describes it, POST signs up). */
export function multiuseLink(app: AppContext, realm: Realm, key: string): string {
  return `${realmUrl(app.config.externalUrl, realm.string_id)}/api/v1/invites/multiuse/accept?key=${key}`;
}

export interface MultiuseInput {
  expiresInMinutes: number | null | undefined;
  inviteAs: number;
  streamIds: number[];
  groupIds: number[];
  includeRealmDefaultSubscriptions: boolean;
  welcomeMessageCustomText: string | null;
}

export async function doCreateMultiuseInvite(app: AppContext, realm: Realm, user: User, input: MultiuseInput): Promise<string> {
  const welcome = input.welcomeMessageCustomText;
  if (welcome !== null && [...welcome].length > MAX_WELCOME_TEXT) throw badRequest(`welcome_message_custom_text is too long (limit: ${MAX_WELCOME_TEXT} characters)`);
  await checkInvite(app, realm, user, input, 'create_multiuse_invite_group');
  const now = app.clock.now();
  const minutes = input.expiresInMinutes === undefined ? app.config.invitationValidityMinutes : input.expiresInMinutes;
  const key = randomBytes(18).toString('base64url');
  await writeWithEvents(app, realm.id, async (tx) => {
    await tx
      .insertInto('multiuse_invites')
      .values({
        realm_id: realm.id,
        link_key: key,
        invited_by_id: user.id,
        invited_at: now,
        expires_at: minutes === null ? null : now + minutes * 60,
        invited_as: input.inviteAs,
        stream_ids: JSON.stringify(input.streamIds),
        group_ids: JSON.stringify(input.groupIds),
        include_realm_default_subscriptions: input.includeRealmDefaultSubscriptions ? 1 : 0,
        // Only administrators choose the welcome text, as for email invitations.
        welcome_message_custom_text: isAdminRole(user.role) ? welcome : null,
        status: INVITE_PENDING,
      })
      .execute();
    return invitesChanged(tx, realm.id, user.id);
  }, (result) => [result]);
  return multiuseLink(app, realm, key);
}

/** DELETE /invites/multiuse/{id}: administrators revoke any link, others only their own. */
export async function doRevokeMultiuseInvite(app: AppContext, realm: Realm, user: User, id: number): Promise<void> {
  await writeWithEvents(app, realm.id, async (tx) => {
    const row = await tx.selectFrom('multiuse_invites').select(['id', 'invited_by_id', 'status']).where('realm_id', '=', realm.id).where('id', '=', id).executeTakeFirst();
    if (!row || row.status !== INVITE_PENDING) throw noSuchInvitation();
    if (!isAdminRole(user.role) && row.invited_by_id !== user.id) throw badRequest('Must be an organization administrator');
    await tx.updateTable('multiuse_invites').set({ status: INVITE_REVOKED }).where('id', '=', id).execute();
    return invitesChanged(tx, realm.id, row.invited_by_id);
  }, (result) => [result]);
}

/** POST /invites/{id}/resend: a fresh link mailed again (only the key's hash is stored, so the old one cannot be resent). */
export async function doResendInvite(app: AppContext, realm: Realm, user: User, id: number): Promise<void> {
  const now = app.clock.now();
  const key = randomBytes(24).toString('base64url');
  const { result } = await writeWithEvents(app, realm.id, async (tx) => {
    const row = await tx.selectFrom('invitations').selectAll().where('realm_id', '=', realm.id).where('id', '=', id).executeTakeFirst();
    if (!row || row.status !== INVITE_PENDING || (row.expires_at !== null && row.expires_at <= now)) throw noSuchInvitation();
    if (!isAdminRole(user.role) && row.invited_by_id !== user.id) throw badRequest('Must be an organization administrator');
    // The link keeps its validity period, counted again from now.
    const expiresAt = row.expires_at === null ? null : now + (row.expires_at - row.invited_at);
    await tx.updateTable('invitations').set({ key_hash: inviteKeyHash(key), invited_at: now, expires_at: expiresAt }).where('id', '=', id).execute();
    return { row, expiresAt, changed: await invitesChanged(tx, realm.id, row.invited_by_id) };
  }, (result) => [result.changed]);
  const inviter = (await app.store.db.selectFrom('users').selectAll().where('id', '=', result.row.invited_by_id).executeTakeFirst()) ?? user;
  await app.mail.send(inviteMail(app, realm, inviter, result.row.email, key, result.expiresAt));
}

async function usableLink(tx: Tx, realm: Realm, key: string, now: number) {
  const row = await tx.selectFrom('multiuse_invites').selectAll().where('realm_id', '=', realm.id).where('link_key', '=', key).executeTakeFirst();
  if (!row) throw badRequest('Invalid invitation link');
  if (row.status !== INVITE_PENDING) throw badRequest('This invitation has been revoked');
  if (row.expires_at !== null && row.expires_at <= now) throw badRequest('This invitation has expired');
  return row;
}

/** What a reusable link shows before sign-up. */
export async function multiuseDetails(app: AppContext, realm: Realm, key: string): Promise<Record<string, unknown>> {
  const row = await app.store.read((tx) => usableLink(tx, realm, key, app.clock.now()));
  return { realm_name: realm.name, invited_as: row.invited_as, expiry_date: row.expires_at };
}

/**
 * Signs up through a reusable link: the link becomes a one-time email invitation for this address
 * (the link's role, channels, groups and welcome text), which the usual flow then accepts.
 */
export async function doAcceptMultiuseInvite(app: AppContext, realm: Realm, key: string, email: string, fullName: string, password: string): Promise<User> {
  const address = checkEmail(email);
  if ([...password].length < MIN_PASSWORD_LENGTH) throw badRequest('The password is too weak.');
  if (passwordTooLong(password)) throw badRequest('Password is too long.');
  const now = app.clock.now();
  const oneTime = randomBytes(24).toString('base64url');
  const { result: invitationId } = await app.store.write(async (tx) => {
    const link = await usableLink(tx, realm, key, now);
    const taken = await tx.selectFrom('users').select('id').where('realm_id', '=', realm.id).where('email_key', '=', address.toLowerCase()).executeTakeFirst();
    if (taken) throw badRequest('Already has an account.');
    const row = await tx
      .insertInto('invitations')
      .values({
        realm_id: realm.id,
        email: address,
        email_key: address.toLowerCase(),
        key_hash: inviteKeyHash(oneTime),
        invited_by_id: link.invited_by_id,
        invited_at: now,
        expires_at: link.expires_at,
        invited_as: link.invited_as,
        stream_ids: link.stream_ids,
        group_ids: link.group_ids,
        include_realm_default_subscriptions: link.include_realm_default_subscriptions,
        notify_referrer_on_join: 0,
        welcome_message_custom_text: link.welcome_message_custom_text,
        status: INVITE_PENDING,
        accepted_user_id: null,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return row.id;
  });
  try {
    return await doAcceptInvite(app, realm, oneTime, fullName, password);
  } catch (err) {
    // Nobody else holds the one-time key: retire it so a failed sign-up leaves no pending invitation.
    await app.store.write((tx) => tx.updateTable('invitations').set({ status: INVITE_REVOKED }).where('id', '=', invitationId).where('status', '=', INVITE_PENDING).execute());
    throw err;
  }
}
