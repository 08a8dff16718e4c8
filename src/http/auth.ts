// Finds the organization from the Host header and the user from HTTP Basic credentials.
import { timingSafeEqual } from 'node:crypto';
import type { HttpRequest } from './types.js';
import type { AppContext } from '../context.js';
import type { Realm, User } from '../store/schema.js';
import { ApiError, unauthorized } from '../core/api-error.js';
import { detached, memoByString } from './string-memo.js';
import { sessionUser } from './web/session.js';

/** The organization subdomain a Host header names, relative to the configured external host. */
let rootOf = { url: '', subdomain: (_host: string) => '' };

export function subdomainOf(hostHeader: string | undefined, externalUrl: string): string {
  // Parsing the configured URL once, not per request: it never changes while the server runs.
  // Every request of a client sends the same Host, so its answer is remembered.
  if (rootOf.url !== externalUrl) {
    const root = new URL(externalUrl).host.toLowerCase();
    rootOf = { url: externalUrl, subdomain: memoByString((host) => subdomainUnder(root, host)) };
  }
  return rootOf.subdomain(hostHeader ?? '');
}

function subdomainUnder(root: string, hostHeader: string): string {
  const host = hostHeader.toLowerCase();
  if (host.endsWith('.' + root)) return host.slice(0, -(root.length + 1));
  const rootName = root.split(':')[0];
  const hostName = host.split(':')[0];
  if (hostName.endsWith('.' + rootName)) return hostName.slice(0, -(rootName.length + 1));
  return '';
}

/**
 * The organization a request is for. Synchronous when it is cached (nearly always), so a long-poll
 * spends no promise and no microtask on it.
 */
export function resolveRealm(app: AppContext, req: HttpRequest): Realm | Promise<Realm> {
  const subdomain = subdomainOf(hostOf(req), app.config.externalUrl);
  return app.caches.cachedRealm(subdomain) ?? app.caches.realmBySubdomain(subdomain).then(existingRealm);
}

/** The Host header, or HTTP/2's `:authority` that stands for it. */
function hostOf(req: HttpRequest): string | undefined {
  const host = req.headers.host ?? req.headers[':authority'];
  return typeof host === 'string' ? host : undefined;
}

function existingRealm(realm: Realm | undefined): Realm {
  if (!realm) throw new ApiError('There is no organization at this address', 'BAD_REQUEST', 404);
  return realm;
}

export function parseBasicAuth(header: string | undefined): { username: string; password: string } | null {
  if (!header) return null;
  const m = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
  if (!m) return null;
  const decoded = Buffer.from(m[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return null;
  return { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * Checks Basic credentials (API email + API key) against the realm; null when none were sent.
 * Synchronous when the user is cached, as for the realm.
 */
export function authenticate(app: AppContext, realm: Realm, req: HttpRequest): User | null | Promise<User> {
  const header = req.headers.authorization;
  if (header !== undefined) {
    // A header already checked against a user whose cached row is unchanged (see Caches).
    const known = app.caches.userForVerifiedHeader(header);
    if (known) return checkAccount(known, realm);
  }
  // The web client's session cookie stands in for Basic credentials (web/session.ts).
  if (header === undefined) return sessionUser(app, realm, req)?.then((user) => checkAccount(user, realm)) ?? null;
  const creds = parseBasicAuth(header);
  if (!creds) {
    if (header) throw unauthorized('Invalid authorization header for basic auth', 'UNAUTHORIZED');
    return null;
  }
  // Cached and dropped at once by app.caches.userChanged (see docs/architecture.md).
  const cached = app.caches.cachedUser(creds.password);
  if (cached) return verified(app, header!, checkUser(cached, creds, realm));
  return app.caches.userByApiKey(creds.password).then((user) => verified(app, header!, checkUser(user, creds, realm)));
}

function verified(app: AppContext, header: string, user: User): User {
  // Kept for as long as the user is cached: a copy, not a slice of this request's head.
  app.caches.rememberVerifiedHeader(detached(header), user);
  return user;
}

function checkUser(user: User | undefined, creds: { username: string; password: string }, realm: Realm): User {
  if (!user || !safeEqual(user.api_key, creds.password)) throw unauthorized('Invalid API key', 'INVALID_API_KEY');
  const email = creds.username.toLowerCase();
  if (user.email.toLowerCase() !== email && user.email_key !== email) throw unauthorized('Invalid API key', 'INVALID_API_KEY');
  return checkAccount(user, realm);
}

/** What is checked on every request, whether the credentials were compared now or before. */
function checkAccount(user: User, realm: Realm): User {
  if (user.realm_id !== realm.id) throw unauthorized('Account is not associated with this subdomain', 'INVALID_API_KEY');
  if (realm.deactivated) throw unauthorized('This organization has been deactivated', 'REALM_DEACTIVATED');
  if (!user.is_active) throw unauthorized('Account is deactivated', 'USER_DEACTIVATED');
  return user;
}
