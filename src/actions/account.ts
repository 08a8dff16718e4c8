// Account identity from PATCH /settings: display name, password, and email changes confirmed by a mailed one-time link.
import { createHash, randomBytes } from 'node:crypto';
import type { AppContext } from '../context.js';
import type { Realm, User } from '../store/schema.js';
import type { Tx } from '../store/store.js';
import { badRequest } from '../core/api-error.js';
import { isAdminRole } from '../models/roles.js';
import { checkPassword, hashPassword } from '../lib/secrets.js';
import { apiEmailFor, canSeeDeliveryEmail, realmHostName, userByEmail, userById } from '../lib/users.js';
import { realmSettings } from '../lib/realm-settings.js';
import { realmUrl } from '../lib/state/realm.js';
import { avatarPerson } from '../presenters/avatar.js';
import { checkEmail, checkFullName } from './users.js';
import { writeWithEvents, to, type Outgoing } from '../events/publish.js';
import { dropInaccessibleRecipients } from '../lib/user-access.js';

/** How long an emailed confirmation link works. */
export const EMAIL_CHANGE_VALIDITY_SECS = 24 * 3600;
/** Shorter passwords are refused as too weak (the original's minimum length). */
export const MIN_PASSWORD_LENGTH = 6;
/** Longer passwords are refused (the original's maximum; register's password_max_length). */
export const MAX_PASSWORD_LENGTH = 100;
export const passwordTooLong = (p: string): boolean => [...p].length > MAX_PASSWORD_LENGTH;

const activeViewers = (tx: Tx, realmId: number) => tx.selectFrom('users').select(['id', 'role']).where('realm_id', '=', realmId).where('is_active', '=', 1).execute();

/** Renames the user; everyone who can see them gets the realm_user full-name update. */
export async function doChangeFullName(app: AppContext, realm: Realm, user: User, rawName: string): Promise<void> {
  // The original ignores a forbidden rename silently: its own clients never offer it.
  if (realmSettings(realm).name_changes_disabled === true && !isAdminRole(user.role)) return;
  const fullName = checkFullName(rawName);
  const { result } = await writeWithEvents(app, realm.id, async (tx) => {
    const row = await userById(tx, realm.id, user.id);
    if (!row || row.full_name === fullName) return null;
    await tx.updateTable('users').set({ full_name: fullName }).where('id', '=', user.id).execute();
    const viewers = await activeViewers(tx, realm.id);
    const events = [to(viewers.map((v) => v.id), { type: 'realm_user', op: 'update', person: { user_id: user.id, full_name: fullName } })];
    await dropInaccessibleRecipients(tx, realm, events);
    return events;
  }, (events) => events ?? []);
  if (!result) return;
  app.caches.userChanged(user.id);
}

/** Sets a new password after checking the current one (wrong: an error, and nothing changes). */
export async function doChangePassword(app: AppContext, realm: Realm, user: User, oldPassword: string, newPassword: string): Promise<void> {
  // Shares fetch_api_key's budget of failures, so this is no faster way to guess the password.
  const limitKey = `${realm.id}:${user.delivery_email.trim().toLowerCase()}`;
  app.passwordLimiter.check(limitKey);
  if (!(await checkPassword(user.password_hash, oldPassword))) {
    app.passwordLimiter.record(limitKey);
    throw badRequest('Wrong password!');
  }
  if ([...newPassword].length < MIN_PASSWORD_LENGTH) throw badRequest('New password is too weak!');
  if (passwordTooLong(newPassword)) throw badRequest('Password is too long.');
  // Hashing is slow: done before the transaction, as when creating users.
  const hash = await hashPassword(newPassword);
  await app.store.write((tx) => tx.updateTable('users').set({ password_hash: hash }).where('id', '=', user.id).execute());
  app.caches.userChanged(user.id);
}

/** Sets a password without the current one: the operator's reset (`parley change-password`). */
export async function doResetPassword(app: AppContext, user: User, newPassword: string): Promise<void> {
  if (!newPassword) throw badRequest('The new password is empty');
  const hash = await hashPassword(newPassword);
  await app.store.write((tx) => tx.updateTable('users').set({ password_hash: hash }).where('id', '=', user.id).execute());
  app.caches.userChanged(user.id);
}

const keyHash = (key: string): string => createHash('sha256').update(key).digest('hex');

/** Starts an email change: stores a one-time key and mails its link to the new address. */
export async function doStartEmailChange(app: AppContext, realm: Realm, user: User, rawEmail: string): Promise<void> {
  if (realmSettings(realm).email_changes_disabled === true && !isAdminRole(user.role)) {
    throw badRequest('Email address changes are disabled in this organization.');
  }
  const email = checkEmail(rawEmail);
  if (email.toLowerCase() === user.delivery_email.toLowerCase()) return;
  const key = randomBytes(24).toString('base64url');
  const now = app.clock.now();
  await app.store.write(async (tx) => {
    if (await userByEmail(tx, realm.id, email)) throw badRequest(`Email '${email}' already in use`);
    // Only the newest request's link works: asking again replaces an address typed wrongly.
    await tx.deleteFrom('email_changes').where('user_id', '=', user.id).where('used_at', 'is', null).execute();
    await tx
      .insertInto('email_changes')
      .values({ key_hash: keyHash(key), realm_id: realm.id, user_id: user.id, new_email: email, created_at: now, expires_at: now + EMAIL_CHANGE_VALIDITY_SECS, used_at: null })
      .execute();
  });
  const link = `${realmUrl(app.config.externalUrl, realm.string_id)}/api/v1/settings/email/confirm?key=${key}`;
  await app.mail.send({
    to: email,
    subject: `Confirm your new email address for ${realm.name}`,
    text: [
      `Hi ${user.full_name},`,
      '',
      `Someone (hopefully you) asked to change the email address of your ${realm.name} account from ${user.delivery_email} to ${email}.`,
      '',
      'To confirm the change, open this link:',
      '',
      link,
      '',
      `The link works once and expires in ${EMAIL_CHANGE_VALIDITY_SECS / 3600} hours. If you did not ask for this, ignore this email.`,
    ].join('\n'),
  });
}

/** Confirms an email change by its key: updates the address and announces it; returns the new address. */
export async function doConfirmEmailChange(app: AppContext, realm: Realm, key: string): Promise<string> {
  const now = app.clock.now();
  const { result } = await writeWithEvents(app, realm.id, async (tx) => {
    const row = await tx.selectFrom('email_changes').selectAll().where('key_hash', '=', keyHash(key)).where('realm_id', '=', realm.id).executeTakeFirst();
    if (!row) throw badRequest('Invalid confirmation key');
    if (row.used_at !== null) throw badRequest('This confirmation key has already been used');
    if (row.expires_at < now) throw badRequest('This confirmation key has expired');
    const user = await userById(tx, realm.id, row.user_id);
    if (!user || !user.is_active) throw badRequest('Invalid confirmation key');
    const taken = await userByEmail(tx, realm.id, row.new_email);
    if (taken && taken.id !== user.id) throw badRequest(`Email '${row.new_email}' already in use`);
    await tx.updateTable('email_changes').set({ used_at: now }).where('id', '=', row.id).execute();
    const email = row.new_email;
    // A hidden address keeps its dummy API email; only delivery_email changes.
    const apiEmail = apiEmailFor({ ...user, delivery_email: email }, realmHostName(app.config.externalUrl, realm));
    await tx.updateTable('users').set({ email: apiEmail, delivery_email: email, email_key: email.toLowerCase() }).where('id', '=', user.id).execute();
    const after: User = { ...user, email: apiEmail, delivery_email: email, email_key: email.toLowerCase() };
    const events = emailChangeEvents(user, after, await activeViewers(tx, realm.id));
    await dropInaccessibleRecipients(tx, realm, events);
    return { before: user, email, events };
  }, (result) => result.events);
  app.caches.userChanged(result.before.id);
  const { before, email: newEmail } = result;
  // The old address learns of the change, so a hijacked session cannot move the account silently.
  await app.mail
    .send({
      to: before.delivery_email,
      subject: `Your email address for ${realm.name} was changed`,
      text: `Hi ${before.full_name},\n\nThe email address of your ${realm.name} account was changed from ${before.delivery_email} to ${newEmail}.\n\nIf you did not do this, contact your organization's administrators.\n`,
    })
    .catch(() => {
      // The change is committed; a failed courtesy notice must not report it as failed.
    });
  return newEmail;
}

/** new_email to everyone, the delivery email to those allowed to see it, and a new third-party avatar URL. */
function emailChangeEvents(before: User, after: User, viewers: Pick<User, 'id' | 'role'>[]): Outgoing[] {
  const events: Outgoing[] = [
    to(before.email === after.email ? [] : viewers.map((v) => v.id), { type: 'realm_user', op: 'update', person: { user_id: after.id, new_email: after.email } }),
    to(viewers.filter((v) => canSeeDeliveryEmail(v, after)).map((v) => v.id), { type: 'realm_user', op: 'update', person: { user_id: after.id, delivery_email: after.delivery_email } }),
  ];
  // Third-party avatars are looked up by address, so the URL changes with it.
  if (after.avatar_source === 'G') {
    events.push(to(viewers.map((v) => v.id), { type: 'realm_user', op: 'update', person: avatarPerson(after) }));
  }
  return events;
}
