// GET or POST /accounts/unsubscribe/<kind>/<token>: the one-click link of notification emails (RFC 8058 POST too).
import type { AppContext } from '../../context.js';
import type { HttpRequest, HttpResponse } from '../types.js';
import type { UnexpectedHandler } from '../server.js';
import { newRequestId } from '../request-log.js';
import { doUnsubscribeByToken, isUnsubscribeKind } from '../../actions/email-unsubscribe.js';
import { escapeHtml } from '../../lib/mail/missed-message.js';
import { reply } from './reply.js';

export const UNSUBSCRIBE_PREFIX = '/accounts/unsubscribe/';

const page = (status: number, title: string, body: string) =>
  [status, `<!doctype html><html><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head><body style="font-family:sans-serif;max-width:40em;margin:3em auto"><h1>${escapeHtml(title)}</h1><p>${escapeHtml(body)}</p></body></html>`] as const;

export async function serveUnsubscribe(app: AppContext, req: HttpRequest, res: HttpResponse, pathname: string, onUnexpected: UnexpectedHandler): Promise<void> {
  req.resume();
  const method = (req.method ?? 'GET').toUpperCase();
  const send = ([status, html]: readonly [number, string], extra: Record<string, string> = {}) =>
    reply(res, status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', ...extra }, method === 'HEAD' ? '' : html);
  if (method !== 'GET' && method !== 'POST' && method !== 'HEAD') return send(page(405, 'Method not allowed', 'Open the link from the email.'), { allow: 'GET, POST' });
  const m = /^([a-z_]+)\/([0-9a-f]{32})\/?$/.exec(pathname.slice(UNSUBSCRIBE_PREFIX.length));
  if (!m || !isUnsubscribeKind(m[1])) return send(page(404, 'Unknown link', 'This unsubscribe link is not valid.'));
  try {
    // HEAD (link checkers) changes nothing.
    if (method === 'HEAD') return send(page(200, 'Unsubscribe', ''));
    const done = await doUnsubscribeByToken(app, m[1], m[2]);
    if (!done) return send(page(404, 'Unknown link', 'This unsubscribe link is not valid.'));
    send(page(200, 'Unsubscribed', `${done.label}: done. You will no longer receive these emails from ${done.realmName}; you can turn them on again in your notification settings.`));
  } catch (err) {
    const requestId = newRequestId();
    onUnexpected(err, requestId);
    send(page(500, 'Something went wrong', `Please try again later (request ${requestId}).`));
  }
}
