// Declares how a view authenticates: with a user (the default), optionally, or not at all.
import type { ApiRequest, AuthedRequest, Handler, LATER, ViewResult } from './types.js';

export function authed(fn: (req: AuthedRequest) => Promise<ViewResult> | typeof LATER): Handler {
  const h = fn as Handler;
  h.auth = 'user';
  return h;
}

export function optionalAuth(fn: (req: ApiRequest) => Promise<ViewResult>): Handler {
  const h = fn as Handler;
  h.auth = 'optional';
  return h;
}

export function noAuth(fn: (req: ApiRequest) => Promise<ViewResult>): Handler {
  const h = fn as Handler;
  h.auth = 'none';
  return h;
}
