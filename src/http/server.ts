// Turns node:http requests into view calls: realm, auth, parameters, envelope and error handling.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AppContext } from '../context.js';
import { ApiError } from './errors.js';
import { parseRequestParams } from './body.js';
import { Params } from './params.js';
import { authenticate, resolveRealm } from './auth.js';
import type { Router } from './router.js';
import { RawResponse, type ApiRequest } from './types.js';

const API_PREFIX = '/api/v1/';

function send(res: ServerResponse, status: number, body: string | Buffer, headers: Record<string, string>): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(status, { 'content-length': String(Buffer.byteLength(body)), ...headers });
  res.end(body);
}

function sendJson(res: ServerResponse, status: number, payload: unknown): void {
  send(res, status, JSON.stringify(payload), { 'content-type': 'application/json' });
}

function sendError(res: ServerResponse, err: ApiError): void {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (err.status === 401) headers['www-authenticate'] = 'Basic realm="parley"';
  send(res, err.status, JSON.stringify(err), headers);
}

/** A client name like the original's: the product token of the User-Agent, else "API". */
function clientNameOf(req: IncomingMessage): string {
  const ua = req.headers['user-agent'];
  if (!ua) return 'API';
  const m = /^([^/\s]+)/.exec(ua);
  return m ? m[1].slice(0, 30) : 'API';
}

export function createRequestHandler(app: AppContext, router: Router, onUnexpected: (err: unknown) => void) {
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const aborter = new AbortController();
    res.on('close', () => aborter.abort());
    try {
      const url = new URL(req.url ?? '/', 'http://x');
      if (!url.pathname.startsWith(API_PREFIX)) {
        req.resume();
        throw new ApiError('Not Found', 'BAD_REQUEST', 404);
      }
      const path = url.pathname.slice(API_PREFIX.length).replace(/\/+$/, '');
      const method = (req.method ?? 'GET').toUpperCase();
      const match = router.match(method, path);
      if (match.kind === 'none') {
        req.resume();
        throw new ApiError('Not Found', 'BAD_REQUEST', 404);
      }
      if (match.kind === 'method') {
        req.resume();
        throw new ApiError('Method Not Allowed', 'BAD_REQUEST', 405, { allowed_methods: match.allowed });
      }
      const { params, files } = await parseRequestParams(req, url);
      const realm = await resolveRealm(app, req);
      const mode = match.handler.auth ?? 'user';
      const user = mode === 'none' ? null : await authenticate(app, realm, req);
      if (mode === 'user' && !user) throw new ApiError('Not logged in: API authentication or user session required', 'UNAUTHORIZED', 401);
      const p = new Params({ raw: params, used: new Set() });
      const apiReq: ApiRequest = {
        app,
        realm,
        user,
        params: p,
        pathParams: match.pathParams,
        files,
        clientName: clientNameOf(req),
        http: req,
        signal: aborter.signal,
      };
      const result = await match.handler(apiReq);
      if (result instanceof RawResponse) {
        send(res, result.status, result.body, result.headers);
        return;
      }
      const ignored = p.ignored();
      const envelope: Record<string, unknown> = { result: 'success', msg: '', ...result };
      if (ignored.length) envelope.ignored_parameters_unsupported = ignored;
      sendJson(res, 200, envelope);
    } catch (err) {
      if (err instanceof ApiError) {
        sendError(res, err);
        return;
      }
      onUnexpected(err);
      sendJson(res, 500, { result: 'error', msg: 'Internal server error', code: 'BAD_REQUEST' });
    }
  };
}
