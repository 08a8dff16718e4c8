// POST and DELETE /users/me/avatar, and the avatar images this server serves (generated and uploaded).
import type { RouteList } from '../http/router.js';
import { acceptsFiles } from '../http/handlers.js';
import { endpoint } from '../http/endpoint.js';
import { Type, id, oneOf, str } from '../core/param-types.js';
import { badRequest, notFound } from '../core/api-error.js';
import { RawResponse } from '../http/types.js';
import { doDeleteAvatar, doUploadAvatar } from '../actions/avatars.js';
import { AVATAR_SIZES, avatarOwner, identiconPng, type AvatarKind } from '../lib/avatars.js';
import { avatarFileKey } from '../lib/storage/keys.js';
import { avatarInfo, avatarUrl } from '../presenters/avatar.js';

const AvatarUrl = Type.Object({ avatar_url: Type.Union([Type.String(), Type.Null()]) });

const upload = endpoint({
  summary: 'Upload an avatar',
  response: AvatarUrl,
  run: async (req) => {
    if (req.files.length !== 1) throw badRequest('You must upload exactly one avatar.');
    const after = await doUploadAvatar(req.app, req.realm, req.user, await req.files[0].read());
    return { avatar_url: avatarUrl(avatarInfo(after), { clientGravatar: false }) };
  },
});

const remove = endpoint({
  summary: 'Delete the avatar',
  response: AvatarUrl,
  run: async (req) => {
    const after = await doDeleteAvatar(req.app, req.realm, req.user);
    return { avatar_url: avatarUrl(avatarInfo(after), { clientGravatar: false }) };
  },
});

// Public, like the original's avatar URLs: message lists and notifications embed them.
const image = endpoint({
  summary: 'Get an avatar image',
  auth: 'none',
  path: {
    realm_id: id({ invalid: notFound }),
    user_id: id({ invalid: notFound }),
    file: oneOf(['standard.png', 'medium.png'], { invalid: notFound }),
  },
  // Only compared with the current version, never stored: any text will do.
  params: { version: str({ allowNul: true }) },
  response: Type.Never(),
  raw: 'image/png',
  run: async (req, a) => {
    if (a.realm_id !== req.realm.id) throw notFound();
    const kind: AvatarKind = a.file === 'medium.png' ? 'medium' : 'standard';
    const u = await avatarOwner(req.app.store.db, a.realm_id, a.user_id);
    if (!u) throw notFound();
    // The newest image is served whatever version was asked for; only the current version's URL may be cached for good.
    const current = a.version === String(u.avatar_version);
    const headers = { 'content-type': 'image/png', 'cache-control': current ? 'public, max-age=31536000, immutable' : 'public, max-age=60' };
    if (u.avatar_source === 'G') {
      // Third-party avatars are not stored here: send the client where the avatar URL would have.
      const url = avatarUrl(avatarInfo(u), { clientGravatar: false, medium: kind === 'medium' })!;
      return new RawResponse(302, '', { location: url, 'cache-control': 'public, max-age=60' });
    }
    if (u.avatar_source === 'U') {
      const data = await req.app.files.get(avatarFileKey(a.realm_id, a.user_id, u.avatar_version, kind));
      if (!data) throw notFound();
      return new RawResponse(200, data, headers);
    }
    return new RawResponse(200, await identiconPng(a.realm_id, a.user_id, AVATAR_SIZES[kind]), headers);
  },
});

export const routes: RouteList = [
  ['users/me/avatar', { POST: acceptsFiles(upload, (c) => c.maxAvatarFileSizeMib * 1024 * 1024), DELETE: remove }],
  ['user_avatars/{realm_id:int}/{user_id:int}/{file}', { GET: image }],
];
