// POST /jwt/fetch_api_key: per-organization keys, HS256 and RS256, refused algorithms, expiry, include_profile.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac, createSign, generateKeyPairSync } from 'node:crypto';
import { request, startTestServer, type Client, type TestServer } from './helpers/server.js';
import { parseJwtKeys } from '../src/lib/jwt.js';

const SECRET = 'a-long-shared-hmac-secret-for-tests';
const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const PUBLIC_PEM = publicKey.export({ type: 'spki', format: 'pem' }).toString();

let s: TestServer;
let member: Client;
before(async () => {
  s = await startTestServer({
    env: {
      PARLEY_JWT_KEYS: JSON.stringify({
        // The tokens of the first tests carry no exp: these organizations allow that explicitly (exp is required by default).
        '': { key: SECRET, algorithms: ['HS256'], require_exp: false },
        rsa: { key: PUBLIC_PEM, algorithms: ['RS256'], require_exp: false },
        strict: { key: SECRET, algorithms: ['HS384', 'HS256'] },
        aud: { key: SECRET, algorithms: ['HS256'], audience: 'parley-aud', issuer: 'https://idp.example.com', clock_skew_secs: 5 },
      }),
    },
  });
  member = await s.user('Jay Dubya');
});
after(async () => {
  await s.close();
});

const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
function hs256(payload: Record<string, unknown>, secret = SECRET, header: Record<string, unknown> = { alg: 'HS256', typ: 'JWT' }): string {
  const body = `${b64(header)}.${b64(payload)}`;
  return `${body}.${createHmac('sha256', secret).update(body).digest('base64url')}`;
}
function rs256(payload: Record<string, unknown>): string {
  const body = `${b64({ alg: 'RS256', typ: 'JWT' })}.${b64(payload)}`;
  return `${body}.${createSign('RSA-SHA256').update(body).sign(privateKey).toString('base64url')}`;
}
const fetchKey = (params: Record<string, unknown>, host?: string) => request(s.url, 'POST', 'jwt/fetch_api_key', params as never, { host });
const now = () => Math.floor(Date.now() / 1000);

test('HS256: the email claim selects the user; include_profile adds the User object', async () => {
  const r = await fetchKey({ token: hs256({ email: member.email, exp: now() + 60 }) });
  assert.equal(r.status, 200);
  assert.deepEqual([r.body.api_key, r.body.email, r.body.user], [member.apiKey, member.email, undefined]);
  const p = await request(s.url, 'POST', 'jwt/fetch_api_key', { token: hs256({ email: member.email.toUpperCase() }), include_profile: true }, { as: 'multipart' });
  assert.equal(p.body.user.user_id, member.userId);
  assert.equal(p.body.user.full_name, 'Jay Dubya');
  for (const k of ['delivery_email', 'email', 'date_joined', 'is_active', 'is_owner', 'is_admin', 'is_guest', 'is_bot', 'bot_type', 'bot_owner_id', 'role', 'timezone', 'avatar_url', 'avatar_version', 'is_imported_stub']) {
    assert.ok(k in p.body.user, k);
  }
  const q = await request(s.url, 'POST', 'jwt/fetch_api_key', { token: hs256({ email: member.email }) }, { as: 'query' });
  assert.equal(q.body.api_key, member.apiKey);
});

test('RS256 for an organization configured with a public key', async () => {
  const other = await s.realm2('rsa');
  const r = await fetchKey({ token: rs256({ email: 'owner@rsa.example.com' }) }, 'rsa.localhost');
  assert.equal(r.status, 200);
  assert.equal(r.body.api_key, other.owner.apiKey);
  // The key of one organization does not open another.
  const cross = await fetchKey({ token: rs256({ email: member.email }) }, 'rsa.localhost');
  assert.deepEqual([cross.status, cross.body.code], [401, 'AUTHENTICATION_FAILED']);
  const hsThere = await fetchKey({ token: hs256({ email: 'owner@rsa.example.com' }) }, 'rsa.localhost');
  assert.equal(hsThere.body.msg, 'Bad JSON web token');
});

test('refused tokens: none, algorithm confusion, bad signature, expired, malformed, missing claims', async () => {
  const bad = async (token: string, msg: string, host?: string) => {
    const r = await fetchKey({ token }, host);
    assert.deepEqual([r.status, r.body.code, r.body.msg], [400, 'BAD_REQUEST', msg], token);
  };
  const body = `${b64({ alg: 'none', typ: 'JWT' })}.${b64({ email: member.email })}`;
  await bad(`${body}.`, 'Bad JSON web token');
  // The RSA public key used as an HMAC secret.
  await bad(hs256({ email: 'owner@rsa.example.com' }, PUBLIC_PEM), 'Bad JSON web token', 'rsa.localhost');
  await bad(hs256({ email: member.email }, 'wrong-secret'), 'Bad JSON web token');
  await bad(hs256({ email: member.email }, SECRET, { alg: 'HS512' }), 'Bad JSON web token');
  await bad(hs256({ email: member.email, exp: now() - 3600 }), 'Bad JSON web token');
  await bad(hs256({ email: member.email, nbf: now() + 3600 }), 'Bad JSON web token');
  await bad('not.a.token', 'Bad JSON web token');
  await bad('abc', 'Bad JSON web token');
  await bad(hs256({ sub: 'x' }), 'No email specified in JSON web token claims');
  const none = await fetchKey({});
  assert.deepEqual([none.status, none.body.msg], [400, 'No JSON web token passed in request']);
  const unknown = await fetchKey({ token: hs256({ email: 'ghost@example.com' }) });
  assert.deepEqual([unknown.status, unknown.body.code], [401, 'AUTHENTICATION_FAILED']);
});

test('organizations without JWT configuration, deactivated users', async () => {
  await s.realm2('nojwt');
  const r = await fetchKey({ token: hs256({ email: 'owner@nojwt.example.com' }) }, 'nojwt.localhost');
  assert.deepEqual([r.status, r.body.msg], [400, 'JWT authentication is not enabled for this organization']);
  const gone = await s.user('Gone Jay');
  await s.owner.ok('DELETE', `users/${gone.userId}`);
  const d = await fetchKey({ token: hs256({ email: gone.email }) });
  assert.deepEqual([d.status, d.body.code], [401, 'USER_DEACTIVATED']);
});

test('configuration is checked at start-up', () => {
  assert.equal(parseJwtKeys('').size, 0);
  assert.throws(() => parseJwtKeys('[]'), /JSON object/);
  assert.throws(() => parseJwtKeys(JSON.stringify({ a: { key: 'k', algorithms: ['none'] } })), /algorithms/);
  assert.throws(() => parseJwtKeys(JSON.stringify({ a: { key: 'k', algorithms: ['HS256', 'RS256'] } })), /mixes/);
  assert.throws(() => parseJwtKeys(JSON.stringify({ a: { key: 'not a pem', algorithms: ['RS256'] } })));
  assert.deepEqual(parseJwtKeys(JSON.stringify({ a: { key: 'k' } })).get('a')?.algorithms, ['HS256']);
});

test('exp is required unless the organization allows tokens without it; clock skew is the configured one', async () => {
  const strict = await s.realm2('strict');
  const host = 'strict.localhost';
  const email = 'owner@strict.example.com';
  const noExp = await fetchKey({ token: hs256({ email }) }, host);
  assert.deepEqual([noExp.status, noExp.body.msg], [400, 'Bad JSON web token']);
  const ok = await fetchKey({ token: hs256({ email, exp: now() + 60 }) }, host);
  assert.deepEqual([ok.status, ok.body.api_key], [200, strict.owner.apiKey]);
  // Another listed algorithm is accepted; one outside the list is not.
  const hs384 = (payload: Record<string, unknown>) => {
    const body = `${b64({ alg: 'HS384', typ: 'JWT' })}.${b64(payload)}`;
    return `${body}.${createHmac('sha384', SECRET).update(body).digest('base64url')}`;
  };
  assert.equal((await fetchKey({ token: hs384({ email, exp: now() + 60 }) }, host)).status, 200);
  const hs512 = (payload: Record<string, unknown>) => {
    const body = `${b64({ alg: 'HS512', typ: 'JWT' })}.${b64(payload)}`;
    return `${body}.${createHmac('sha512', SECRET).update(body).digest('base64url')}`;
  };
  assert.equal((await fetchKey({ token: hs512({ email, exp: now() + 60 }) }, host)).body.msg, 'Bad JSON web token');
  // Within the default 60 s of skew an expired token still passes; beyond it, not.
  assert.equal((await fetchKey({ token: hs256({ email, exp: now() - 30 }) }, host)).status, 200);
  assert.equal((await fetchKey({ token: hs256({ email, exp: now() - 90 }) }, host)).body.msg, 'Bad JSON web token');
  // A non-numeric exp is not an expiry.
  assert.equal((await fetchKey({ token: hs256({ email, exp: 'tomorrow' }) }, host)).body.msg, 'Bad JSON web token');
});

test('audience and issuer, when the organization names them, must match; its skew of 5 s applies', async () => {
  const aud = await s.realm2('aud');
  const host = 'aud.localhost';
  const email = 'owner@aud.example.com';
  const claims = { email, exp: now() + 60, aud: 'parley-aud', iss: 'https://idp.example.com' };
  const ok = await fetchKey({ token: hs256(claims) }, host);
  assert.deepEqual([ok.status, ok.body.api_key], [200, aud.owner.apiKey]);
  assert.equal((await fetchKey({ token: hs256({ ...claims, aud: ['other', 'parley-aud'] }) }, host)).status, 200);
  for (const wrong of [{ aud: 'other' }, { aud: undefined }, { iss: 'https://evil.example.com' }, { iss: undefined }, { exp: now() - 10 }]) {
    const r = await fetchKey({ token: hs256({ ...claims, ...wrong }) }, host);
    assert.deepEqual([r.status, r.body.msg], [400, 'Bad JSON web token'], JSON.stringify(wrong));
  }
});

test('the new configuration fields are checked at start-up; today\'s format keeps working', () => {
  const today = parseJwtKeys(JSON.stringify({ a: { key: 'k', algorithms: ['HS256'] } })).get('a')!;
  assert.deepEqual([today.requireExp, today.clockSkewSecs, today.audience, today.issuer], [true, 60, undefined, undefined]);
  assert.throws(() => parseJwtKeys(JSON.stringify({ a: { key: 'k', audience: '' } })), /audience/);
  assert.throws(() => parseJwtKeys(JSON.stringify({ a: { key: 'k', issuer: 5 } })), /issuer/);
  assert.throws(() => parseJwtKeys(JSON.stringify({ a: { key: 'k', clock_skew_secs: -1 } })), /clock_skew_secs/);
  assert.throws(() => parseJwtKeys(JSON.stringify({ a: { key: 'k', require_exp: 'no' } })), /require_exp/);
});
