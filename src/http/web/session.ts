// The web client's session cookie: finding its user, the CSRF check, and the cookie's attributes.
import { timingSafeEqual } from 'node:crypto';
import type { AppContext } from '../../context.js';
import type { Realm, User } from '../../store/schema.js';
import type { HttpRequest } from '../types.js';
import { ApiError, unauthorized } from '../errors.js';
import { tokenHash } from '../../actions/web-sessions.js';
import { realmUrl } from '../../lib/state/realm.js';

export const SESSION_COOKIE = 'parley_session';
/** The header a page script sends its session's CSRF token in. */
export const CSRF_HEADER = 'x-csrf-token';

interface KnownSession {
  userId: number;
  realmId: number;
  apiKey: string;
  csrfToken: string;
  expiresAt: number;
  /** When this node last read the row: a session closed on another node is honoured here within CACHE_SECS. */
  readAt: number;
}

/** Seconds a session row is trusted without reading it again (it keeps long-polls off the database). */
const CACHE_SECS = 30;
const known = new Map<string, KnownSession>();

/** The value of one cookie of the request, or null. */
export function cookieValue(req: HttpRequest, name: string): string | null {
  const header = req.headers.cookie;
  if (typeof header !== 'string') return null;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return null;
}

/** Forgets a session on this node at once (log out, password reset). */
export function forgetSession(token: string): void {
  known.delete(tokenHash(token));
}

async function loadSession(app: AppContext, hash: string): Promise<KnownSession | null> {
  const row = await app.store.db
    .selectFrom('web_sessions')
    .innerJoin('users', 'users.id', 'web_sessions.user_id')
    .select(['web_sessions.user_id', 'web_sessions.realm_id', 'web_sessions.csrf_token', 'web_sessions.expires_at', 'users.api_key'])
    .where('web_sessions.token_hash', '=', hash)
    .executeTakeFirst();
  if (!row) {
    known.delete(hash);
    return null;
  }
  const session = { userId: row.user_id, realmId: row.realm_id, apiKey: row.api_key, csrfToken: row.csrf_token, expiresAt: row.expires_at, readAt: app.clock.now() };
  if (known.size > 50_000) known.delete(known.keys().next().value as string);
  known.set(hash, session);
  return session;
}

/** The open session a cookie token names, or null (unknown, expired, or signed out). */
export async function sessionOf(app: AppContext, token: string): Promise<KnownSession | null> {
  const hash = tokenHash(token);
  const now = app.clock.now();
  const cached = known.get(hash);
  const session = cached && cached.readAt > now - CACHE_SECS ? cached : await loadSession(app, hash);
  if (!session || session.expiresAt < now) return null;
  return session;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * Refuses a request that another site may have made the browser send: a cross-site fetch, an
 * Origin other than the request's own host, or (for anything that changes state) no matching
 * CSRF token in the header. A page of another origin can neither read the token nor set the header.
 */
export function checkSameOrigin(req: HttpRequest, app: AppContext, realm: Realm): void {
  if (req.headers['sec-fetch-site'] === 'cross-site') throw csrfFailed('Cross-site request');
  const origin = req.headers.origin;
  if (origin === undefined) return;
  if (origin === 'null') throw csrfFailed('Opaque origin');
  let originHost = '';
  try {
    originHost = new URL(String(origin)).host;
  } catch {
    // An unparsable Origin matches nothing.
  }
  // The request's own host, or the organization's public one (a proxy may rewrite Host).
  const host = req.headers.host ?? req.headers[':authority'];
  if (originHost !== host && originHost !== new URL(realmUrl(app.config.externalUrl, realm.string_id)).host) throw csrfFailed('Origin does not match');
}

const csrfFailed = (why: string) => new ApiError(`CSRF verification failed: ${why}`, 'CSRF_FAILED', 403);

function checkCsrf(app: AppContext, realm: Realm, req: HttpRequest, session: KnownSession): void {
  checkSameOrigin(req, app, realm);
  if (SAFE_METHODS.has((req.method ?? 'GET').toUpperCase())) return;
  const sent = req.headers[CSRF_HEADER];
  if (typeof sent !== 'string' || !sameText(sent, session.csrfToken)) throw csrfFailed('CSRF token missing or incorrect');
}

/**
 * The user of the request's session cookie, for a request without an Authorization header; null
 * without a cookie. A cookie that names no open session is refused, not ignored.
 */
export function sessionUser(app: AppContext, realm: Realm, req: HttpRequest): Promise<User> | null {
  const token = cookieValue(req, SESSION_COOKIE);
  if (!token) return null;
  return sessionOf(app, token).then(async (session) => {
    if (!session || session.realmId !== realm.id) throw unauthorized('Your session has expired; please log in again', 'UNAUTHORIZED');
    checkCsrf(app, realm, req, session);
    const user = app.caches.cachedUser(session.apiKey) ?? (await app.caches.userByApiKey(session.apiKey));
    // The key changed since the row was read (regenerated): read it again once.
    if (!user) {
      known.delete(tokenHash(token));
      const fresh = await sessionOf(app, token);
      const again = fresh && (await app.caches.userByApiKey(fresh.apiKey));
      if (!again) throw unauthorized('Your session has expired; please log in again', 'UNAUTHORIZED');
      return again;
    }
    return user;
  });
}

/** The Set-Cookie value that stores (or, with an empty token, clears) the session cookie. */
export function sessionCookie(token: string, secure: boolean, maxAgeSecs: number): string {
  const attrs = [`${SESSION_COOKIE}=${token}`, 'Path=/', 'HttpOnly', 'SameSite=Lax', `Max-Age=${token ? maxAgeSecs : 0}`];
  if (secure) attrs.push('Secure');
  return attrs.join('; ');
}
