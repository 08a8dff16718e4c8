// JSON Web Token verification for POST /jwt/fetch_api_key through jose: per-organization keys, an algorithm allow-list (HS256/384/512 or RS256/384/512), exp, aud, iss and clock skew.
import { createPublicKey, createSecretKey, type KeyObject } from 'node:crypto';
import { jwtVerify, type JWTVerifyOptions } from 'jose';

/** One organization's JWT configuration (PARLEY_JWT_KEYS entry). */
export interface JwtKeyConfig {
  key: string;
  algorithms: string[];
  /** When set, the token's `aud` must name it. */
  audience?: string;
  /** When set, the token's `iss` must be it. */
  issuer?: string;
  /** Seconds of clock difference allowed between the issuer and this server for exp and nbf (default 60). */
  clockSkewSecs: number;
  /** Whether a token without `exp` is refused (default true). */
  requireExp: boolean;
}

const HMAC = ['HS256', 'HS384', 'HS512'];
const RSA = ['RS256', 'RS384', 'RS512'];
export const SUPPORTED_ALGORITHMS = [...HMAC, ...RSA];

function optionalString(v: unknown, what: string): string | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== 'string' || !v) throw new Error(`${what} must be a non-empty string`);
  return v;
}

/**
 * Parses PARLEY_JWT_KEYS: a JSON object {subdomain: {key, algorithms, audience?, issuer?,
 * clock_skew_secs?, require_exp?}}. Each organization allows either HMAC or RSA algorithms, never
 * both, so one key can never be used as the other kind (the algorithm-confusion attack: an RSA
 * public key used as an HMAC secret).
 */
export function parseJwtKeys(text: string): Map<string, JwtKeyConfig> {
  const out = new Map<string, JwtKeyConfig>();
  if (!text.trim()) return out;
  const raw = JSON.parse(text) as unknown;
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new Error('PARLEY_JWT_KEYS must be a JSON object');
  for (const [subdomain, v] of Object.entries(raw as Record<string, unknown>)) {
    const where = `PARLEY_JWT_KEYS["${subdomain}"]`;
    const c = v as Record<string, unknown> | null;
    if (typeof c?.key !== 'string' || !c.key) throw new Error(`${where}.key must be a non-empty string`);
    const algorithms = (c.algorithms ?? ['HS256']) as string[];
    if (!Array.isArray(algorithms) || !algorithms.length || algorithms.some((a) => !SUPPORTED_ALGORITHMS.includes(a))) {
      throw new Error(`${where}.algorithms must list some of ${SUPPORTED_ALGORITHMS.join(', ')}`);
    }
    const hmac = algorithms.some((a) => HMAC.includes(a));
    if (hmac && algorithms.some((a) => RSA.includes(a))) throw new Error(`${where} mixes HMAC and RSA algorithms`);
    if (!hmac) createPublicKey(c.key); // fails at start-up on a malformed PEM key
    const skew = c.clock_skew_secs ?? 60;
    if (typeof skew !== 'number' || !Number.isInteger(skew) || skew < 0) throw new Error(`${where}.clock_skew_secs must be a non-negative integer`);
    const requireExp = c.require_exp ?? true;
    if (typeof requireExp !== 'boolean') throw new Error(`${where}.require_exp must be true or false`);
    out.set(subdomain, {
      key: c.key,
      algorithms,
      audience: optionalString(c.audience, `${where}.audience`),
      issuer: optionalString(c.issuer, `${where}.issuer`),
      clockSkewSecs: skew,
      requireExp,
    });
  }
  return out;
}

export class JwtError extends Error {}

const keys = new Map<string, KeyObject>();

function keyOf(config: JwtKeyConfig): KeyObject {
  let key = keys.get(config.key);
  if (!key) {
    key = HMAC.includes(config.algorithms[0]) ? createSecretKey(Buffer.from(config.key)) : createPublicKey(config.key);
    keys.set(config.key, key);
  }
  return key;
}

/** Verifies a compact JWS and returns its claims; throws JwtError when anything is wrong. */
export async function verifyJwt(token: string, config: JwtKeyConfig, nowSecs: number): Promise<Record<string, unknown>> {
  const options: JWTVerifyOptions = {
    // "none" and any algorithm the organization did not configure are refused before the signature is looked at.
    algorithms: config.algorithms,
    audience: config.audience,
    issuer: config.issuer,
    clockTolerance: config.clockSkewSecs,
    currentDate: new Date(nowSecs * 1000),
    requiredClaims: config.requireExp ? ['exp'] : [],
  };
  try {
    const { payload } = await jwtVerify(token, keyOf(config), options);
    return payload as Record<string, unknown>;
  } catch {
    // One message whatever failed, as the original: the client learns nothing about the check.
    throw new JwtError('Bad JSON web token');
  }
}
