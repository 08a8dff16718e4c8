// JSON Web Token verification for POST /jwt/fetch_api_key: per-organization keys, HS256/384/512 and RS256/384/512.
import { createHmac, createPublicKey, createVerify, timingSafeEqual, type KeyObject } from 'node:crypto';

/** One organization's JWT configuration: the key and the algorithms its tokens may use. */
export interface JwtKeyConfig {
  key: string;
  algorithms: string[];
}

const HMAC: Record<string, string> = { HS256: 'sha256', HS384: 'sha384', HS512: 'sha512' };
const RSA: Record<string, string> = { RS256: 'RSA-SHA256', RS384: 'RSA-SHA384', RS512: 'RSA-SHA512' };
export const SUPPORTED_ALGORITHMS = [...Object.keys(HMAC), ...Object.keys(RSA)];

/**
 * Parses PARLEY_JWT_KEYS: a JSON object {subdomain: {key, algorithms}}. Each organization allows
 * either HMAC or RSA algorithms, never both, so one key can never be used as the other kind
 * (the algorithm-confusion attack: an RSA public key used as an HMAC secret).
 */
export function parseJwtKeys(text: string): Map<string, JwtKeyConfig> {
  const out = new Map<string, JwtKeyConfig>();
  if (!text.trim()) return out;
  const raw = JSON.parse(text) as unknown;
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new Error('PARLEY_JWT_KEYS must be a JSON object');
  for (const [subdomain, v] of Object.entries(raw as Record<string, unknown>)) {
    const c = v as Partial<JwtKeyConfig>;
    if (typeof c?.key !== 'string' || !c.key) throw new Error(`PARLEY_JWT_KEYS["${subdomain}"].key must be a non-empty string`);
    const algorithms = c.algorithms ?? ['HS256'];
    if (!Array.isArray(algorithms) || !algorithms.length || algorithms.some((a) => !SUPPORTED_ALGORITHMS.includes(a))) {
      throw new Error(`PARLEY_JWT_KEYS["${subdomain}"].algorithms must list some of ${SUPPORTED_ALGORITHMS.join(', ')}`);
    }
    const hmac = algorithms.some((a) => a in HMAC);
    if (hmac && algorithms.some((a) => a in RSA)) throw new Error(`PARLEY_JWT_KEYS["${subdomain}"] mixes HMAC and RSA algorithms`);
    if (!hmac) createPublicKey(c.key); // fails at start-up on a malformed PEM key
    out.set(subdomain, { key: c.key, algorithms });
  }
  return out;
}

export class JwtError extends Error {}

function b64json(part: string): Record<string, unknown> {
  try {
    const v = JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as unknown;
    if (typeof v === 'object' && v !== null && !Array.isArray(v)) return v as Record<string, unknown>;
  } catch {
    // reported below
  }
  throw new JwtError('Bad JSON web token');
}

const publicKeys = new Map<string, KeyObject>();

/** Verifies a compact JWS and returns its claims; throws JwtError when anything is wrong. */
export function verifyJwt(token: string, config: JwtKeyConfig, nowSecs: number): Record<string, unknown> {
  const parts = token.split('.');
  if (parts.length !== 3 || parts.some((p) => !/^[A-Za-z0-9_-]*$/.test(p))) throw new JwtError('Bad JSON web token');
  const header = b64json(parts[0]);
  const alg = header.alg;
  // "none" and any algorithm the organization did not configure are refused before anything else.
  if (typeof alg !== 'string' || !config.algorithms.includes(alg)) throw new JwtError('Bad JSON web token');
  const signed = Buffer.from(`${parts[0]}.${parts[1]}`);
  const signature = Buffer.from(parts[2], 'base64url');
  let ok: boolean;
  if (alg in HMAC) {
    const expected = createHmac(HMAC[alg], config.key).update(signed).digest();
    ok = expected.length === signature.length && timingSafeEqual(expected, signature);
  } else {
    let key = publicKeys.get(config.key);
    if (!key) publicKeys.set(config.key, (key = createPublicKey(config.key)));
    ok = createVerify(RSA[alg]).update(signed).verify(key, signature);
  }
  if (!ok) throw new JwtError('Bad JSON web token');
  const claims = b64json(parts[1]);
  // Registered time claims, with a minute of leeway for clock skew between the issuer and us.
  if (claims.exp !== undefined && (typeof claims.exp !== 'number' || claims.exp + 60 <= nowSecs)) throw new JwtError('Bad JSON web token');
  if (claims.nbf !== undefined && (typeof claims.nbf !== 'number' || claims.nbf - 60 > nowSecs)) throw new JwtError('Bad JSON web token');
  return claims;
}
