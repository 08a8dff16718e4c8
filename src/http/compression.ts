// Compresses large JSON answers (brotli or gzip, by the request's Accept-Encoding) at the fastest levels: see docs/performance.md.
import zlib from 'node:zlib';
import type { HttpRequest, HttpResponse } from './types.js';

/** Smaller answers go as they are: compressing them saves less than a packet and costs a zlib stream. */
export const MIN_COMPRESSED_BYTES = 4096;

export type Encoding = 'br' | 'gzip';

/**
 * The encoding each pending response may use, from its request's Accept-Encoding. Kept beside the
 * response rather than on it, so the three response classes stay as they are; only requests that
 * send the header pay for an entry.
 */
const accepted = new WeakMap<HttpResponse, Encoding>();

/** Notes what the request accepts, for the answer sent later on this response. */
export function noteAcceptedEncoding(req: HttpRequest, res: HttpResponse): void {
  const header = req.headers['accept-encoding'];
  if (typeof header !== 'string' || !header) return;
  const encoding = chooseEncoding(header);
  if (encoding) accepted.set(res, encoding);
}

/**
 * brotli if accepted, else gzip (both measured at their fastest levels: brotli 1 compresses the
 * unread backlog to half of gzip 1's size in the same time). q=0 refuses a coding; `*` accepts any.
 */
export function chooseEncoding(header: string): Encoding | null {
  const q = new Map<string, number>();
  for (const part of header.split(',')) {
    const [rawName, ...params] = part.toLowerCase().split(';');
    const name = rawName.trim();
    if (!name) continue;
    let weight = 1;
    for (const p of params) {
      const m = /^\s*q\s*=\s*([0-9.]+)\s*$/.exec(p);
      if (m) weight = Number(m[1]);
    }
    q.set(name, Number.isFinite(weight) ? weight : 0);
  }
  const weightOf = (name: string) => q.get(name) ?? q.get('*') ?? 0;
  const br = weightOf('br');
  const gzip = Math.max(weightOf('gzip'), weightOf('x-gzip'));
  if (br > 0 && br >= gzip) return 'br';
  if (gzip > 0) return 'gzip';
  return null;
}

/** Shared header objects (the lean server puts its header lines together once per object). */
const HEADERS: Record<Encoding, Record<string, string>> = {
  br: Object.freeze({ 'content-type': 'application/json', 'content-encoding': 'br', vary: 'accept-encoding' }),
  gzip: Object.freeze({ 'content-type': 'application/json', 'content-encoding': 'gzip', vary: 'accept-encoding' }),
};

const BROTLI_FASTEST = { [zlib.constants.BROTLI_PARAM_QUALITY]: 1 };

/** The JSON answer compressed for this response, or null to send it as it is. */
export function compressJson(res: HttpResponse, json: string | Buffer): { body: Buffer; headers: Record<string, string> } | null {
  if (json.length < MIN_COMPRESSED_BYTES) return null;
  const encoding = accepted.get(res);
  if (!encoding) return null;
  const raw = typeof json === 'string' ? Buffer.from(json) : json;
  const body =
    encoding === 'br'
      ? zlib.brotliCompressSync(raw, { params: { ...BROTLI_FASTEST, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: raw.length } })
      : zlib.gzipSync(raw, { level: 1 });
  return { body, headers: HEADERS[encoding] };
}
