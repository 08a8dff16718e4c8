// GET the Unicode emoji name table that /register's server_emoji_data_url points to (public, cached).
import type { RouteList } from '../http/router.js';
import { endpoint } from '../http/endpoint.js';
import { Type, str } from '../core/param-types.js';
import { RawResponse } from '../http/types.js';
import { NON_API_ROUTE } from '../http/router.js';
import { EMOJI_DATA_PATH, emojiDataFile } from '../lib/emoji/unicode.js';

// Public like a static file. The URL carries the content hash (?v=): that URL is cached for good, any
// other briefly; the ETag lets a client revalidate either.
const serve = endpoint({
  summary: 'Get the Unicode emoji name table',
  auth: 'none',
  // Only compared with the content hash.
  params: { v: str({ allowNul: true }) },
  response: Type.Never(),
  raw: 'application/json',
  run: async (req, a) => {
    const etag = `"${emojiDataFile().hash}"`;
    const cacheControl = a.v === emojiDataFile().hash ? 'public, max-age=31536000, immutable' : 'public, max-age=3600';
    const headers = { etag, 'cache-control': cacheControl };
    if (req.http.headers['if-none-match'] === etag) return new RawResponse(304, '', headers);
    // A static file, not an API answer: exactly the object openapi describes, `{"code_to_names": …}`.
    return new RawResponse(200, emojiDataFile().body, { ...headers, 'content-type': 'application/json' });
  },
});

export const routes: RouteList = [[`${NON_API_ROUTE}/${EMOJI_DATA_PATH}`, { GET: serve }]];
