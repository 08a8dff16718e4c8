// POST /calls/videoprovider/create, and the per-user authorization step (POST/DELETE /calls/videoprovider/authorize).
import type { RouteList } from '../http/router.js';
import { endpoint } from '../http/endpoint.js';
import { Type } from '../core/param-types.js';
import { doAuthorizeVideoCalls, doCreateVideoCall, doRevokeVideoCalls } from '../actions/video-calls.js';

const createCall = endpoint({
  summary: 'Create a video call',
  response: Type.Object({ url: Type.String() }),
  run: async (req) => ({ url: await doCreateVideoCall(req.app, req.user) }),
});

const authorize = endpoint({
  summary: 'Authorize video calls with the configured provider',
  response: Type.Object({}),
  run: async (req) => {
    await doAuthorizeVideoCalls(req.app, req.realm, req.user);
    return {};
  },
});

const revoke = endpoint({
  summary: 'Revoke the video-call authorization',
  response: Type.Object({}),
  run: async (req) => {
    await doRevokeVideoCalls(req.app, req.realm, req.user);
    return {};
  },
});

export const routes: RouteList = [
  ['calls/videoprovider/create', { POST: createCall }],
  ['calls/videoprovider/authorize', { POST: authorize, DELETE: revoke }],
];
