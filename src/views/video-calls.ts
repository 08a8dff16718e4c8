// POST /calls/videoprovider/create, and the per-user authorization step (POST/DELETE /calls/videoprovider/authorize).
import type { RouteList } from '../http/router.js';
import { authed } from '../http/handlers.js';
import { doAuthorizeVideoCalls, doCreateVideoCall, doRevokeVideoCalls } from '../actions/video-calls.js';

const createCall = authed(async (req) => ({ url: await doCreateVideoCall(req.app, req.user) }));

const authorize = authed(async (req) => {
  await doAuthorizeVideoCalls(req.app, req.realm, req.user);
  return {};
});

const revoke = authed(async (req) => {
  await doRevokeVideoCalls(req.app, req.realm, req.user);
  return {};
});

export const routes: RouteList = [
  ['calls/videoprovider/create', { POST: createCall }],
  ['calls/videoprovider/authorize', { POST: authorize, DELETE: revoke }],
];
