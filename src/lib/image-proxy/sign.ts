// The original's camo URL form: /external_content/<HMAC-SHA1 of the URL, hex>/<the URL's bytes, hex>.
import { createHmac, timingSafeEqual } from 'node:crypto';

/** Where this server serves proxied images (the original's default CAMO_URI). */
export const PROXY_PATH = '/external_content/';

export interface ImageProxy {
  /** Prefix of proxy URLs, ending in "/". */
  uri: string;
  /** HMAC key; shared by every node (config or server_secrets). */
  key: string;
}

export const proxyDigest = (key: string, url: string): string => createHmac('sha1', key).update(url).digest('hex');

/** The proxy URL of an external URL. */
export function proxyUrl(proxy: ImageProxy, url: string): string {
  return `${proxy.uri}${proxyDigest(proxy.key, url)}/${Buffer.from(url, 'utf8').toString('hex')}`;
}

/** The URL a proxy path names, when its signature is this key's; null otherwise (also for malformed parts). */
export function verifiedUrl(key: string, digestHex: string, urlHex: string): string | null {
  if (!/^[0-9a-f]{40}$/i.test(digestHex) || !/^(?:[0-9a-f]{2})+$/i.test(urlHex) || urlHex.length > 16_384) return null;
  const url = Buffer.from(urlHex, 'hex').toString('utf8');
  const want = Buffer.from(proxyDigest(key, url), 'hex');
  const given = Buffer.from(digestHex, 'hex');
  return timingSafeEqual(want, given) ? url : null;
}
