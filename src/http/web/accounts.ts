// The web client's sign-in endpoints under /accounts/: log in, session, log out, password reset.
import type { AppContext } from '../../context.js';
import type { HttpRequest, HttpResponse } from '../types.js';
import type { Realm } from '../../store/schema.js';
import { ApiError } from '../errors.js';
import path from 'node:path';
import { parseRequestParams, type BodyLimits } from '../body.js';
import { remoteAddressOf, type UnexpectedHandler } from '../server.js';
import { newRequestId } from '../request-log.js';
import { Params } from '../params.js';
import { resolveRealm } from '../auth.js';
import { doCloseSession, doCompletePasswordReset, doOpenSession, doStartPasswordReset, SESSION_VALIDITY_SECS } from '../../actions/web-sessions.js';
import { checkSameOrigin, cookieValue, forgetSession, SESSION_COOKIE, sessionCookie, sessionOf, sessionUser } from './session.js';
import { replyJson } from './reply.js';

export const ACCOUNTS_PREFIX = '/accounts/';

interface AccountCall {
  app: AppContext;
  realm: Realm;
  req: HttpRequest;
  params: Params;
}

type Answer = { status?: number; body: Record<string, unknown>; cookie?: string };
type Endpoint = (call: AccountCall) => Promise<Answer>;

const secureCookies = (app: AppContext): boolean => app.config.externalUrl.startsWith('https:');

/** Email and password: opens a session; the page gets the CSRF token, never the API key. */
const login: Endpoint = async ({ app, realm, params }) => {
  const opened = await doOpenSession(app, realm, params.reqStr('username'), params.reqStr('password'));
  return {
    body: { csrf_token: opened.csrfToken, user_id: opened.user.id, email: opened.user.email, full_name: opened.user.full_name },
    cookie: sessionCookie(opened.token, secureCookies(app), SESSION_VALIDITY_SECS),
  };
};

/** Who the cookie signs in, and the CSRF token for this session (a page loads this first). */
const session: Endpoint = async ({ app, realm, req }) => {
  const token = cookieValue(req, SESSION_COOKIE);
  const pending = sessionUser(app, realm, req);
  if (!token || !pending) throw new ApiError('Not logged in', 'UNAUTHORIZED', 401);
  const user = await pending;
  const open = await sessionOf(app, token);
  if (!open) throw new ApiError('Not logged in', 'UNAUTHORIZED', 401);
  return { body: { csrf_token: open.csrfToken, user_id: user.id, email: user.email, full_name: user.full_name } };
};

/** Ends the session (the CSRF check of sessionUser applies: another site cannot log you out). */
const logout: Endpoint = async ({ app, realm, req }) => {
  const token = cookieValue(req, SESSION_COOKIE);
  const pending = sessionUser(app, realm, req);
  if (token && pending) {
    await pending;
    await doCloseSession(app, token);
    forgetSession(token);
  }
  return { body: {}, cookie: sessionCookie('', secureCookies(app), 0) };
};

const requestReset: Endpoint = async ({ app, realm, params }) => {
  await doStartPasswordReset(app, realm, params.reqStr('email'));
  return { body: {} };
};

const completeReset: Endpoint = async ({ app, realm, params }) => {
  await doCompletePasswordReset(app, realm, params.reqStr('key'), params.reqStr('new_password'));
  return { body: {} };
};

const ENDPOINTS: Record<string, Record<string, Endpoint>> = {
  login: { POST: login },
  session: { GET: session },
  logout: { POST: logout },
  'password/reset': { POST: requestReset },
  'password/set': { POST: completeReset },
};

/** The account forms carry a few short fields and never files. */
const FORM_BODY_BYTES = 64 * 1024;
const formLimits = (app: AppContext): BodyLimits => ({
  maxBodyBytes: FORM_BODY_BYTES,
  maxFiles: 0,
  maxFileBytes: 0,
  tempDir: path.join(app.config.dataDir, 'incoming'),
  timeoutMs: app.config.requestTimeoutMs,
});

/** Answers one request under /accounts/ with the API's JSON envelopes. */
export async function serveAccounts(app: AppContext, req: HttpRequest, res: HttpResponse, pathname: string, query: string, onUnexpected: UnexpectedHandler): Promise<void> {
  try {
    const name = pathname.slice(ACCOUNTS_PREFIX.length).replace(/\/+$/, '');
    const methods = ENDPOINTS[name];
    const method = (req.method ?? 'GET').toUpperCase();
    if (!methods) {
      req.resume();
      throw new ApiError('Not Found', 'BAD_REQUEST', 404);
    }
    const endpoint = methods[method];
    if (!endpoint) {
      req.resume();
      throw new ApiError('Method Not Allowed', 'BAD_REQUEST', 405, { allowed_methods: Object.keys(methods) });
    }
    // Sign-in and password forms: counted per address against the authentication limit (as
    // fetch_api_key is) before their small bodies are read.
    if (method === 'POST') await app.rateLimits.check('authentication', null, remoteAddressOf(req));
    const parsed = await parseRequestParams(req, query, formLimits(app));
    const realm = await resolveRealm(app, req);
    // Signing in from another site's page (login CSRF) is refused as any cross-site request is.
    checkSameOrigin(req, app, realm);
    const params = new Params({ raw: parsed.params, used: new Set() });
    const answer = await endpoint({ app, realm, req, params });
    const ignored = params.ignored();
    const body = { result: 'success', msg: '', ...answer.body, ...(ignored.length ? { ignored_parameters_unsupported: ignored } : {}) };
    replyJson(res, answer.status ?? 200, body, answer.cookie ? { 'set-cookie': answer.cookie } : {});
  } catch (err) {
    if (err instanceof ApiError) {
      replyJson(res, err.status, err);
      return;
    }
    // As the API's 500s: a code of its own and an id the log line carries too.
    const requestId = newRequestId();
    onUnexpected(err, requestId);
    replyJson(res, 500, { result: 'error', msg: 'Internal server error', code: 'INTERNAL_SERVER_ERROR', request_id: requestId });
  }
}
