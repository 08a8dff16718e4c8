// Webex's OAuth 2 API for one user: the authorization URL, code and refresh-token exchange, meeting creation.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { ApiError, badRequest } from '../../core/api-error.js';

export interface WebexApp {
  clientId: string;
  clientSecret: string;
  /** API base, https://webexapis.com/v1 unless the operator points elsewhere. */
  apiUrl: string;
  /** Where Webex sends the browser back: <external URL>/calls/webex/complete. */
  redirectUri: string;
}

export interface WebexToken {
  accessToken: string;
  refreshToken: string | null;
  /** Unix seconds; null when Webex gave no lifetime. */
  expiresAt: number | null;
}

/** The original's scopes: meetings, and spark:all for ad-hoc meetings in a public room. */
const SCOPE = 'meeting:schedules_read meeting:schedules_write spark:all';

export const notConfigured = () => badRequest('Webex credentials have not been configured');
export const invalidToken = () => new ApiError('Invalid Webex access token', 'INVALID_VIDEO_CALL_PROVIDER_TOKEN');
export const createFailed = () => badRequest('Failed to create Webex call');

/**
 * The session identifier carried in the OAuth state: an HMAC of the user under the client secret, so
 * a code can only complete the authorization of the user whose browser started it (no login CSRF).
 */
export function webexSid(app: WebexApp, realmId: number, userId: number): string {
  return createHmac('sha256', app.clientSecret).update(`parley webex sid:${realmId}:${userId}`).digest('hex');
}

export function sidMatches(app: WebexApp, realmId: number, userId: number, sid: string): boolean {
  const want = Buffer.from(webexSid(app, realmId, userId));
  const got = Buffer.from(sid);
  return got.length === want.length && timingSafeEqual(got, want);
}

export function authorizationUrl(app: WebexApp, state: string): string {
  const q = new URLSearchParams({ response_type: 'code', client_id: app.clientId, redirect_uri: app.redirectUri, scope: SCOPE, state });
  return `${app.apiUrl}/authorize?${q.toString()}`;
}

async function tokenRequest(app: WebexApp, form: Record<string, string>, now: number): Promise<WebexToken | null> {
  try {
    const r = await fetch(`${app.apiUrl}/access_token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: new URLSearchParams({ ...form, client_id: app.clientId, client_secret: app.clientSecret }).toString(),
      signal: AbortSignal.timeout(10_000),
    });
    const body = (await r.json().catch(() => null)) as { access_token?: unknown; refresh_token?: unknown; expires_in?: unknown } | null;
    if (!r.ok || typeof body?.access_token !== 'string' || !body.access_token) return null;
    return {
      accessToken: body.access_token,
      refreshToken: typeof body.refresh_token === 'string' ? body.refresh_token : null,
      expiresAt: typeof body.expires_in === 'number' && Number.isFinite(body.expires_in) ? now + Math.floor(body.expires_in) : null,
    };
  } catch {
    return null;
  }
}

/** Exchanges the authorization code; a refused code is the original's "Invalid Webex credentials". */
export async function exchangeCode(app: WebexApp, code: string, now: number): Promise<WebexToken> {
  const token = await tokenRequest(app, { grant_type: 'authorization_code', code, redirect_uri: app.redirectUri }, now);
  if (!token) throw badRequest('Invalid Webex credentials');
  return token;
}

/** A fresh access token from the refresh token, or null when Webex refuses it. */
export function refreshToken(app: WebexApp, token: WebexToken, now: number): Promise<WebexToken | null> {
  if (!token.refreshToken) return Promise.resolve(null);
  return tokenRequest(app, { grant_type: 'refresh_token', refresh_token: token.refreshToken }, now).then((t) => (t && !t.refreshToken ? { ...t, refreshToken: token.refreshToken } : t));
}

/** A POST with the user's token: 401 means the token is no longer good (the caller forgets it). */
async function post(app: WebexApp, accessToken: string, path: string, body: unknown): Promise<{ status: number; json: Record<string, unknown> | null }> {
  try {
    const r = await fetch(`${app.apiUrl}/${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    });
    return { status: r.status, json: (await r.json().catch(() => null)) as Record<string, unknown> | null };
  } catch {
    throw createFailed();
  }
}

export class WebexTokenRejected extends Error {}

/**
 * Creates a meeting as the original does: an ad-hoc meeting in a new public room, which anyone in the
 * user's Webex organization may join; free organizations cannot make public rooms (403), so those get
 * a meeting in the user's personal room for the next 40 minutes.
 */
export async function createWebexMeeting(app: WebexApp, accessToken: string, now: number): Promise<string> {
  const room = await post(app, accessToken, 'rooms', { title: 'Webex Parley Meeting', isPublic: true, description: 'A Webex meeting created from Parley.' });
  if (room.status === 401) throw new WebexTokenRejected();
  let payload: Record<string, unknown>;
  if (room.status === 403) {
    const iso = (t: number) => new Date(t * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
    payload = { scheduledType: 'personalRoomMeeting', title: 'Webex Personal Room Meeting', start: iso(now), end: iso(now + 40 * 60) };
  } else if (room.status >= 200 && room.status < 300 && typeof room.json?.id === 'string') {
    payload = { adhoc: true, roomId: room.json.id, title: 'Webex Ad-hoc meeting' };
  } else {
    throw badRequest('Failed to create Webex public room.');
  }
  const meeting = await post(app, accessToken, 'meetings', payload);
  if (meeting.status === 401) throw new WebexTokenRejected();
  const link = meeting.json?.webLink;
  if (meeting.status < 200 || meeting.status >= 300 || typeof link !== 'string' || !/^https?:\/\//.test(link)) throw createFailed();
  return link;
}
