// Web sign-in: opening and closing browser sessions, and password resets by a mailed one-time link.
import { createHash, randomBytes } from 'node:crypto';
import type { AppContext } from '../context.js';
import type { Realm, User } from '../store/schema.js';
import { ApiError, badRequest } from '../core/api-error.js';
import { checkPassword, hashPassword } from '../lib/secrets.js';
import { userByEmail, userById } from '../lib/users.js';
import { realmUrl } from '../lib/state/realm.js';
import { RateLimiter } from '../lib/rate-limit.js';
import { MIN_PASSWORD_LENGTH, passwordTooLong } from './account.js';
import { doRecordLogin } from './user-admin.js';

/** A browser stays signed in for two weeks after signing in. */
export const SESSION_VALIDITY_SECS = 14 * 24 * 3600;
/** A mailed reset link works for one hour. */
export const RESET_VALIDITY_SECS = 3600;

export const tokenHash = (token: string): string => createHash('sha256').update(token).digest('hex');
const randomToken = (): string => randomBytes(32).toString('base64url');

export interface OpenedSession {
  /** The cookie's value (only its hash is stored). */
  token: string;
  csrfToken: string;
  user: User;
}

/** Checks email and password as fetch_api_key does (sharing its failure budget) and opens a session. */
export async function doOpenSession(app: AppContext, realm: Realm, email: string, password: string): Promise<OpenedSession> {
  const limitKey = `${realm.id}:${email.trim().toLowerCase()}`;
  app.passwordLimiter.check(limitKey);
  const user = await userByEmail(app.store.db, realm.id, email);
  const ok = await checkPassword(user?.password_hash ?? null, password);
  if (!user || !ok || user.is_bot) {
    app.passwordLimiter.record(limitKey);
    throw new ApiError('Your username or password is incorrect', 'AUTHENTICATION_FAILED', 401);
  }
  if (!user.is_active) throw new ApiError('Account is deactivated', 'USER_DEACTIVATED', 401);
  if (realm.deactivated) throw new ApiError('This organization has been deactivated', 'REALM_DEACTIVATED', 401);
  const token = randomToken();
  const csrfToken = randomToken();
  const now = app.clock.now();
  await app.store.write(async (tx) => {
    // Expired sessions of this user go when a new one opens: the table never grows without bound.
    await tx.deleteFrom('web_sessions').where('user_id', '=', user.id).where('expires_at', '<', now).execute();
    await tx
      .insertInto('web_sessions')
      .values({ token_hash: tokenHash(token), realm_id: realm.id, user_id: user.id, csrf_token: csrfToken, created_at: now, expires_at: now + SESSION_VALIDITY_SECS })
      .execute();
  });
  await doRecordLogin(app, realm, user);
  return { token, csrfToken, user };
}

/** Ends one session (log out). */
export async function doCloseSession(app: AppContext, token: string): Promise<void> {
  await app.store.write((tx) => tx.deleteFrom('web_sessions').where('token_hash', '=', tokenHash(token)).execute());
}

/** Reset requests per address per hour: the mail cannot be used to flood someone's inbox. */
const resetLimiter = new RateLimiter(5, 3600, () => Math.floor(Date.now() / 1000));

/**
 * Mails a link to set a new password. Unknown addresses get no mail and the same answer, so the
 * form does not reveal who has an account.
 */
export async function doStartPasswordReset(app: AppContext, realm: Realm, email: string): Promise<void> {
  const limitKey = `${realm.id}:${email.trim().toLowerCase()}`;
  resetLimiter.check(limitKey);
  resetLimiter.record(limitKey);
  const user = await userByEmail(app.store.db, realm.id, email);
  if (!user || !user.is_active || user.is_bot || realm.deactivated) return;
  const key = randomToken();
  const now = app.clock.now();
  await app.store.write(async (tx) => {
    // Only the newest link works.
    await tx.deleteFrom('password_resets').where('user_id', '=', user.id).execute();
    await tx.insertInto('password_resets').values({ key_hash: tokenHash(key), realm_id: realm.id, user_id: user.id, created_at: now, expires_at: now + RESET_VALIDITY_SECS, used_at: null }).execute();
  });
  const link = `${realmUrl(app.config.externalUrl, realm.string_id)}/reset-password?key=${key}`;
  await app.mail.send({
    to: user.delivery_email,
    subject: `Set a new password for ${realm.name}`,
    text: [
      `Hi ${user.full_name},`,
      '',
      `Someone (hopefully you) asked to set a new password for your ${realm.name} account.`,
      '',
      'To choose a new password, open this link:',
      '',
      link,
      '',
      `The link works once and expires in ${RESET_VALIDITY_SECS / 60} minutes. If you did not ask for this, ignore this email: your password stays as it is.`,
    ].join('\n'),
  });
}

/** Sets the new password from a reset link; every session of the account is signed out. */
export async function doCompletePasswordReset(app: AppContext, realm: Realm, key: string, newPassword: string): Promise<void> {
  if ([...newPassword].length < MIN_PASSWORD_LENGTH) throw badRequest('New password is too weak!');
  if (passwordTooLong(newPassword)) throw badRequest('Password is too long.');
  // Hashing is slow: done before the transaction.
  const hash = await hashPassword(newPassword);
  const now = app.clock.now();
  const { result: userId } = await app.store.write(async (tx) => {
    const row = await tx.selectFrom('password_resets').selectAll().where('key_hash', '=', tokenHash(key)).where('realm_id', '=', realm.id).executeTakeFirst();
    if (!row) throw badRequest('Invalid or expired password reset link');
    if (row.used_at !== null) throw badRequest('This password reset link has already been used');
    if (row.expires_at < now) throw badRequest('Invalid or expired password reset link');
    const user = await userById(tx, realm.id, row.user_id);
    if (!user || !user.is_active) throw badRequest('Invalid or expired password reset link');
    await tx.updateTable('password_resets').set({ used_at: now }).where('key_hash', '=', row.key_hash).execute();
    await tx.updateTable('users').set({ password_hash: hash }).where('id', '=', user.id).execute();
    await tx.deleteFrom('web_sessions').where('user_id', '=', user.id).execute();
    return user.id;
  });
  app.caches.userChanged(userId);
}
