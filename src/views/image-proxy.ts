// GET /external_content/<hmac>/<hex url> (the image proxy) and GET /thumbnail?url= (the preview redirect rendered messages use).
import type { RouteList } from '../http/router.js';
import { NON_API_ROUTE } from '../http/router.js';
import { endpoint } from '../http/endpoint.js';
import { Type, oneOf, str } from '../core/param-types.js';
import { ApiError, badRequest, notFound } from '../core/api-error.js';
import { RawResponse } from '../http/types.js';
import { proxyUrl, verifiedUrl, type ImageProxy } from '../lib/image-proxy/sign.js';
import { fetchImage, ProxyRefusal } from '../lib/image-proxy/fetch.js';

const MIB = 1024 * 1024;
const TIMEOUT_MS = 10_000;
const MAX_REDIRECTS = 3;

/**
 * Where a preview's /thumbnail URL leads, as the original's thumbnail view: an external image
 * through the proxy (or as it is, with the proxy off), an upload of this server to its own path.
 */
export function thumbnailTarget(url: string, proxy: ImageProxy | null | undefined): string | null {
  if (/^https?:\/\//i.test(url)) return proxy ? proxyUrl(proxy, url) : url;
  // The renderer drops the leading "/" of a same-site path; anything with a scheme or host is refused.
  const path = url.replace(/^\/(?![/\\])/, '');
  if (!path || /^[a-z][a-z0-9+.-]*:/i.test(path) || /^[/\\]/.test(path)) return null;
  return `/${path}`;
}

const thumbnail = endpoint({
  summary: 'Get an inline image preview',
  params: { url: str({ required: true, maxLength: 8192 }), size: oneOf(['full', 'thumbnail'], { default: 'full' }) },
  response: Type.Never(),
  raw: 'text/plain',
  run: async (req, a) => {
    const target = thumbnailTarget(a.url, req.app.imageProxy);
    if (!target) throw badRequest('Invalid URL');
    return new RawResponse(302, '', { location: target, 'cache-control': 'private, max-age=3600' });
  },
});

const external = endpoint({
  summary: 'Get an external image through the image proxy',
  // The HMAC is the credential: mail readers and logged-out pages load these too.
  auth: 'none',
  path: { digest: str({ invalid: notFound }), url: str({ invalid: notFound }) },
  response: Type.Never(),
  raw: 'application/octet-stream',
  run: async (req, a) => {
    const proxy = req.app.imageProxy;
    if (!proxy) throw notFound();
    const url = verifiedUrl(proxy.key, a.digest, a.url);
    if (!url) throw new ApiError('Invalid signature', 'BAD_REQUEST', 403);
    const c = req.app.config;
    try {
      const got = await fetchImage(url, { maxBytes: c.imageProxyMaxMib * MIB, timeoutMs: TIMEOUT_MS, maxRedirects: MAX_REDIRECTS, allowPrivate: c.imageProxyAllowPrivate });
      return new RawResponse(200, got.body, {
        'content-type': got.contentType,
        // A signed URL always names the same upstream file: browsers and caches in front may keep it.
        'cache-control': 'public, max-age=86400',
        'x-content-type-options': 'nosniff',
        'content-security-policy': "default-src 'none'; sandbox",
        ...(got.etag ? { etag: got.etag } : {}),
        ...(got.lastModified ? { 'last-modified': got.lastModified } : {}),
      });
    } catch (err) {
      if (!(err instanceof ProxyRefusal)) throw err;
      req.app.log.info({ url, reason: err.message }, 'image proxy: refused');
      throw new ApiError(err.status === 404 ? 'Not Found' : `Image not available: ${err.message}`, 'BAD_REQUEST', err.status);
    }
  },
});

export const routes: RouteList = [
  [`${NON_API_ROUTE}/thumbnail`, { GET: thumbnail }],
  [`${NON_API_ROUTE}/external_content/{digest}/{url}`, { GET: external }],
];
