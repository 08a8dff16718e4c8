// A small Parley API client over undici: Basic auth, form or query parameters, JSON answers, timing.
import { Agent, request, type Dispatcher } from 'undici';

export interface Cred {
  email: string;
  apiKey: string;
  /** Host header naming the organization (acme.localhost); the root organization needs none. */
  host?: string;
}

export type Params = Record<string, string | number | boolean | object>;

export const sharedAgent = new Agent({ connections: 64, keepAliveTimeout: 60_000, headersTimeout: 120_000, bodyTimeout: 120_000 });

/** Milliseconds on a clock that agrees across processes on this machine (wall clock, sub-millisecond). */
export const nowMs = (): number => performance.timeOrigin + performance.now();

export function encode(params: Params): string {
  const u = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) u.set(k, typeof v === 'string' ? v : JSON.stringify(v));
  return u.toString();
}

export function headersFor(cred: Cred, form: boolean): Record<string, string> {
  const h: Record<string, string> = { authorization: 'Basic ' + Buffer.from(`${cred.email}:${cred.apiKey}`).toString('base64') };
  if (cred.host) h.host = cred.host;
  if (form) h['content-type'] = 'application/x-www-form-urlencoded';
  return h;
}

export interface ApiResult {
  status: number;
  body: Record<string, any>;
  ms: number;
}

/** One API call; parameters go in the query for GET and DELETE, in a form body otherwise. */
export async function api(baseUrl: string, cred: Cred, method: string, apiPath: string, params: Params = {}, dispatcher: Dispatcher = sharedAgent): Promise<ApiResult> {
  const inQuery = method === 'GET' || method === 'DELETE';
  const qs = encode(params);
  const url = `${baseUrl}/api/v1/${apiPath}${inQuery && qs ? '?' + qs : ''}`;
  const t0 = performance.now();
  const res = await request(url, { method: method as Dispatcher.HttpMethod, headers: headersFor(cred, !inQuery), body: inQuery ? undefined : qs, dispatcher });
  const text = await res.body.text();
  const ms = performance.now() - t0;
  let body: Record<string, any>;
  try {
    body = JSON.parse(text) as Record<string, any>;
  } catch {
    body = { raw: text };
  }
  return { status: res.statusCode, body, ms };
}

/** Like api() but throws unless the call succeeded. */
export async function apiOk(baseUrl: string, cred: Cred, method: string, apiPath: string, params: Params = {}): Promise<ApiResult> {
  const r = await api(baseUrl, cred, method, apiPath, params);
  if (r.status !== 200 || r.body.result !== 'success') throw new Error(`${method} ${apiPath} → ${r.status} ${JSON.stringify(r.body).slice(0, 300)}`);
  return r;
}
