// Declares how a view authenticates (with a user by default, optionally, or not at all), the rate limit it counts against, and whether it takes files.
import type { ApiRequest, AuthedRequest, Handler, LATER, ViewResult } from './types.js';
import type { Config } from '../config.js';
import type { RateClass } from '../lib/request-rate-limits.js';

/** Marks the rate limit a route counts against: "authentication" (logins, per IP, strict) or "none". */
export function rateLimited(h: Handler, kind: RateClass): Handler {
  h.rateLimit = kind;
  return h;
}

/**
 * Marks a route that takes uploaded files, and the largest it accepts: its body may be that large
 * (other routes' bodies are small), its files stream to disk and a larger one is refused as it arrives.
 */
export function acceptsFiles(h: Handler, maxFileBytes: (config: Config) => number): Handler {
  h.maxFileBytes = maxFileBytes;
  return h;
}

export function authed(fn: (req: AuthedRequest) => Promise<ViewResult> | typeof LATER): Handler {
  const h = fn as Handler;
  h.auth = 'user';
  return h;
}

export function noAuth(fn: (req: ApiRequest) => Promise<ViewResult>): Handler {
  const h = fn as Handler;
  h.auth = 'none';
  return h;
}
