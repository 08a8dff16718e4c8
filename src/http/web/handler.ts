// Puts the web client in front of the API: /accounts/ sign-in, the built client's files, and the
// page for client routes; everything under the API's and the server's own prefixes passes through.
import type { AppContext } from '../../context.js';
import type { HttpRequest, HttpResponse } from '../types.js';
import { splitTarget, type UnexpectedHandler } from '../server.js';
import { ACCOUNTS_PREFIX, serveAccounts } from './accounts.js';
import { serveUnsubscribe, UNSUBSCRIBE_PREFIX } from './unsubscribe.js';
import { OPS_PATHS } from '../ops-endpoints.js';
import { DEFAULT_WEB_DIR, loadAssets, type Asset } from './assets.js';
import { reply, replyJson } from './reply.js';

type RequestHandler = (req: HttpRequest, res: HttpResponse) => Promise<void> | void;

/**
 * Paths the client's pages never take, even when no such route exists: the API (and the
 * original's session-authenticated /json/ alias), uploaded files, call join links, server files, well-known URIs
 * (and the operators' /healthz, /readyz, /metrics).
 */
const SERVER_PREFIXES = ['/api/', '/json/', '/user_uploads/', '/calls/', '/static/', '/.well-known/', '/thumbnail', '/external_content/', '/avatar/', '/user_avatars/'];

/** No script but the client's own files; the server's message HTML may carry style attributes (KaTeX). */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "style-src-attr 'unsafe-inline'",
  "img-src 'self' data: blob: https:",
  "media-src 'self' https:",
  "connect-src 'self'",
  "font-src 'self' data:",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const PAGE_HEADERS: Record<string, string> = {
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
  'x-frame-options': 'DENY',
};

function isServerPath(pathname: string): boolean {
  return OPS_PATHS.has(pathname) || SERVER_PREFIXES.some((p) => pathname.startsWith(p) || pathname === p.slice(0, -1));
}

/** The body to send for the client's Accept-Encoding: brotli, else gzip, else as is. */
function encoded(req: HttpRequest, asset: Asset): { body: Buffer; encoding: string | null } {
  const accept = String(req.headers['accept-encoding'] ?? '');
  if (asset.brotli && /\bbr\b/.test(accept)) return { body: asset.brotli, encoding: 'br' };
  if (asset.gzip && /\bgzip\b/.test(accept)) return { body: asset.gzip, encoding: 'gzip' };
  return { body: asset.body, encoding: null };
}

function sendAsset(req: HttpRequest, res: HttpResponse, asset: Asset): void {
  const { body, encoding } = encoded(req, asset);
  const headers: Record<string, string> = {
    ...PAGE_HEADERS,
    'content-type': asset.type,
    // The page is asked for anew each time (it names the current hashed files); they are kept.
    'cache-control': asset.immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
    vary: 'Accept-Encoding',
  };
  if (encoding) headers['content-encoding'] = encoding;
  reply(res, 200, headers, req.method === 'HEAD' ? Buffer.alloc(0) : body);
}

export function createWebHandler(app: AppContext, api: RequestHandler, onUnexpected: UnexpectedHandler, webDir = DEFAULT_WEB_DIR): RequestHandler {
  const assets = loadAssets(webDir);
  const page = assets.get('/index.html');
  // Not an async function: an API request (nearly every request) costs one prefix test and no promise.
  return (req, res) => {
    const target = req.url ?? '/';
    // The API's own paths go straight through (the common case: one prefix test).
    if (target.startsWith('/api/')) return api(req, res);
    let pathname: string;
    let query: string;
    try {
      ({ pathname, query } = splitTarget(target));
    } catch {
      return api(req, res);
    }
    if (isServerPath(pathname)) return api(req, res);
    if (pathname.startsWith(UNSUBSCRIBE_PREFIX)) return void serveUnsubscribe(app, req, res, pathname, onUnexpected);
    if (pathname.startsWith(ACCOUNTS_PREFIX)) return serveAccounts(app, req, res, pathname, query, onUnexpected);
    const method = (req.method ?? 'GET').toUpperCase();
    req.resume();
    if (method !== 'GET' && method !== 'HEAD') return replyJson(res, 405, { result: 'error', msg: 'Method Not Allowed', code: 'BAD_REQUEST', allowed_methods: ['GET'] });
    if (!page) return replyJson(res, 404, { result: 'error', msg: 'The web client is not built (run npm run build)', code: 'BAD_REQUEST' });
    const asset = assets.get(pathname);
    if (asset) return sendAsset(req, res, asset);
    // A missing hashed file is a 404, not the page: a stale script tag must not get HTML back.
    if (pathname.startsWith('/assets/') || /\.[a-z0-9]{1,8}$/i.test(pathname)) return replyJson(res, 404, { result: 'error', msg: 'Not Found', code: 'BAD_REQUEST' });
    // Any other path is a client route (/#narrow is client-side too): the page, which routes itself.
    return sendAsset(req, res, page);
  };
}
