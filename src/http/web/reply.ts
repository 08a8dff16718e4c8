// Writes a complete response on any of the three servers' response objects (web client routes).
import { LeanResponse } from '../h1-lean.js';
import type { HttpResponse } from '../types.js';

interface PlainResponse {
  writeHead(status: number, headers: Record<string, string>): unknown;
  end(body: string | Buffer): unknown;
}

export function reply(res: HttpResponse, status: number, headers: Record<string, string>, body: string | Buffer): void {
  if (res.headersSent) return;
  // The lean server adds Content-Length itself; Node's servers are given it.
  if (res instanceof LeanResponse) {
    res.send(status, headers, body);
    return;
  }
  const plain = res as unknown as PlainResponse;
  plain.writeHead(status, { ...headers, 'content-length': String(Buffer.byteLength(body)) });
  plain.end(body);
}

export function replyJson(res: HttpResponse, status: number, payload: unknown, headers: Record<string, string> = {}): void {
  reply(res, status, { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers }, JSON.stringify(payload));
}
