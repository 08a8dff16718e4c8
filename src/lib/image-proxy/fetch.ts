// Fetches an external image for the proxy: public addresses only, a few redirects, a time and size limit, image or video types.
import http from 'node:http';
import https from 'node:https';
import dns from 'node:dns';
import net from 'node:net';

export interface FetchLimits {
  maxBytes: number;
  timeoutMs: number;
  maxRedirects: number;
  /** Loopback and private addresses allowed (tests; PARLEY_IMAGE_PROXY_ALLOW_PRIVATE). */
  allowPrivate: boolean;
}

export interface Fetched {
  contentType: string;
  body: Buffer;
  /** Validators the upstream sent, passed on so browsers can revalidate. */
  etag?: string;
  lastModified?: string;
}

/** Why a fetch was refused; the endpoint answers each with its status. */
export class ProxyRefusal extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** Addresses a server-side fetch must never reach: this host, private networks, link-local, multicast, reserved. */
const BLOCKED = new net.BlockList();
for (const [net4, bits] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['198.51.100.0', 24], ['203.0.113.0', 24],
  ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) BLOCKED.addSubnet(net4, bits, 'ipv4');
for (const [net6, bits] of [['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8], ['64:ff9b::', 96], ['2001:db8::', 32]] as const) BLOCKED.addSubnet(net6, bits, 'ipv6');

/** Whether an address is one a proxy fetch may not reach (IPv4-mapped IPv6 addresses are checked as IPv4). */
export function isBlockedAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return BLOCKED.check(mapped[1], 'ipv4');
  const family = net.isIP(address);
  if (family === 0) return true;
  return BLOCKED.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/** Allowed types: raster images and videos (the original proxies video previews too); never SVG, which can carry script. */
const ALLOWED_TYPE = /^(?:image\/(?:png|jpeg|gif|webp|avif|bmp|x-icon|vnd\.microsoft\.icon|tiff)|video\/[\w.+-]+)$/;

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void;

/** dns.lookup that fails for blocked addresses, so the check and the connection use the same answer. */
function guardedLookup(hostname: string, options: dns.LookupOptions, callback: LookupCallback): void {
  dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, '');
    const list = addresses as dns.LookupAddress[];
    const bad = list.find((a) => isBlockedAddress(a.address));
    if (bad || !list.length) return callback(Object.assign(new Error(`blocked address for ${hostname}`), { code: 'EBLOCKED' }), '');
    if (options.all) return callback(null, list);
    callback(null, list[0].address, list[0].family);
  });
}

export async function fetchImage(url: string, limits: FetchLimits): Promise<Fetched> {
  const deadline = Date.now() + limits.timeoutMs;
  let current = url;
  for (let hop = 0; ; hop++) {
    const answer = await fetchOnce(current, limits, deadline);
    if ('location' in answer) {
      if (hop >= limits.maxRedirects) throw new ProxyRefusal(502, 'too many redirects');
      current = answer.location;
      continue;
    }
    return answer;
  }
}

function fetchOnce(url: string, limits: FetchLimits, deadline: number): Promise<Fetched | { location: string }> {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new ProxyRefusal(404, 'not a URL');
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new ProxyRefusal(404, 'not an http(s) URL');
  if (u.username || u.password) throw new ProxyRefusal(404, 'URL with credentials');
  const literal = u.hostname.replace(/^\[|\]$/g, '');
  // An address written in the URL is connected to without a lookup: checked here.
  if (net.isIP(literal) && !limits.allowPrivate && isBlockedAddress(literal)) throw new ProxyRefusal(404, 'blocked address');
  const client = u.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = client.get(
      u,
      {
        headers: { 'user-agent': 'Parley image proxy', accept: 'image/*, video/*' },
        ...(limits.allowPrivate ? {} : { lookup: guardedLookup as unknown as typeof dns.lookup }),
        timeout: Math.max(1, deadline - Date.now()),
      },
      (res) => {
        const status = res.statusCode ?? 0;
        if (status >= 300 && status < 400 && res.headers.location) {
          res.resume();
          resolve({ location: new URL(res.headers.location, u).toString() });
          return;
        }
        if (status !== 200) {
          res.resume();
          reject(new ProxyRefusal(status === 404 || status === 410 ? 404 : 502, `upstream answered ${status}`));
          return;
        }
        const type = String(res.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
        if (!ALLOWED_TYPE.test(type)) {
          res.destroy();
          reject(new ProxyRefusal(415, `not an image: ${type || 'no type'}`));
          return;
        }
        const declared = Number(res.headers['content-length'] ?? NaN);
        if (declared > limits.maxBytes) {
          res.destroy();
          reject(new ProxyRefusal(413, 'too large'));
          return;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          size += c.length;
          if (size > limits.maxBytes) {
            res.destroy();
            reject(new ProxyRefusal(413, 'too large'));
            return;
          }
          chunks.push(c);
        });
        res.on('end', () => {
          const etag = res.headers.etag;
          const lastModified = res.headers['last-modified'];
          resolve({ contentType: type, body: Buffer.concat(chunks), ...(etag ? { etag } : {}), ...(lastModified ? { lastModified } : {}) });
        });
        res.on('error', (err) => reject(new ProxyRefusal(502, err.message)));
      },
    );
    // The whole exchange, not only each silence, is bounded by the deadline.
    const timer = setTimeout(() => req.destroy(new ProxyRefusal(504, 'upstream timed out')), Math.max(1, deadline - Date.now()));
    req.on('close', () => clearTimeout(timer));
    req.on('timeout', () => req.destroy(new ProxyRefusal(504, 'upstream timed out')));
    req.on('error', (err) => reject(err instanceof ProxyRefusal ? err : new ProxyRefusal((err as NodeJS.ErrnoException).code === 'EBLOCKED' ? 404 : 502, err.message)));
  });
}
