// Webex calls (POST /calls/webex/create and the browser's OAuth steps /calls/webex/register and /complete)
// and Constructor Groups calls (POST /calls/constructorgroups/create).
import type { RouteList } from '../http/router.js';
import { NON_API_ROUTE } from '../http/router.js';
import { endpoint } from '../http/endpoint.js';
import { RawResponse } from '../core/results.js';
import { badRequest } from '../core/api-error.js';
import { Type, str } from '../core/param-types.js';
import { authorizationUrl, sidMatches, webexSid } from '../lib/video/webex.js';
import { defaultRoomUrl, notConfigured as constructorNotConfigured } from '../lib/video/constructor-groups.js';
import { realmUrl } from '../lib/state/realm.js';
import { doCompleteWebexAuthorization, doCreateWebexCall, requireWebex } from '../actions/video-webex.js';

const createWebex = endpoint({
  summary: 'Create Webex video call',
  response: Type.Object({ url: Type.String() }),
  run: async (req) => ({ url: await doCreateWebexCall(req.app, req.realm, req.user) }),
});

/** Opened by the browser: sends the user to Webex to grant access, with a state only this user can complete. */
const registerWebex = endpoint({
  summary: 'Start the Webex authorization',
  response: Type.Never(),
  raw: 'text/html',
  run: (req) => {
    const webex = requireWebex(req.app);
    const state = JSON.stringify({ realm: req.realm.string_id, sid: webexSid(webex, req.realm.id, req.user.id) });
    return Promise.resolve(new RawResponse(302, '', { location: authorizationUrl(webex, state), 'cache-control': 'no-store' }));
  },
});

const CLOSE_WINDOW = '<!DOCTYPE html><html><head><meta charset="utf-8"><title>Webex</title></head><body><p>Webex is connected: you may close this window.</p><script>window.close()</script></body></html>';

/** Webex sends the browser back here (one redirect URI for the server): on another organization's host, go there first. */
const completeWebex = endpoint({
  summary: 'Complete the Webex authorization',
  params: { code: str({ required: true, maxLength: 2000 }), state: str({ required: true, maxLength: 2000 }) },
  response: Type.Never(),
  raw: 'text/html',
  run: async (req, a) => {
    const webex = requireWebex(req.app);
    let state: { realm?: unknown; sid?: unknown };
    try {
      state = JSON.parse(a.state) as typeof state;
    } catch {
      throw badRequest('Argument "state" is not valid JSON.');
    }
    if (typeof state !== 'object' || state === null || typeof state.realm !== 'string' || typeof state.sid !== 'string') throw badRequest('Invalid Webex session identifier');
    if (state.realm !== req.realm.string_id) {
      const q = new URLSearchParams({ code: a.code, state: a.state });
      return new RawResponse(302, '', { location: `${realmUrl(req.app.config.externalUrl, state.realm)}/calls/webex/complete?${q.toString()}` });
    }
    if (!sidMatches(webex, req.realm.id, req.user.id, state.sid)) throw badRequest('Invalid Webex session identifier');
    await doCompleteWebexAuthorization(req.app, req.realm, req.user, a.code);
    return new RawResponse(200, CLOSE_WINDOW, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
  },
});

const createConstructorGroups = endpoint({
  summary: 'Create Constructor Groups video call',
  response: Type.Object({ url: Type.String() }),
  run: async (req) => {
    const c = req.app.config;
    if (!c.constructorGroupsUrl || !c.constructorGroupsAccessKey || !c.constructorGroupsSecretKey) throw constructorNotConfigured();
    // The original's room names: the user's default room, with a name that is unique should another user hold the first.
    const name = `${req.user.full_name}'s Parley room`;
    const url = await defaultRoomUrl(
      { url: c.constructorGroupsUrl, accessKey: c.constructorGroupsAccessKey, secretKey: c.constructorGroupsSecretKey },
      { creatorEmail: req.user.delivery_email, name, fallbackName: `${name} (${req.realm.id}-${req.user.id})` },
    );
    return { url };
  },
});

export const routes: RouteList = [
  ['calls/webex/create', { POST: createWebex }],
  [`${NON_API_ROUTE}/calls/webex/register`, { GET: registerWebex }],
  [`${NON_API_ROUTE}/calls/webex/complete`, { GET: completeWebex }],
  ['calls/constructorgroups/create', { POST: createConstructorGroups }],
];
