// POST and DELETE /users/me/avatar, and the avatar images this server serves (generated and uploaded).
import type { RouteList } from '../http/router.js';
import { acceptsFiles, authed, noAuth } from '../http/handlers.js';
import { badRequest, notFound } from '../core/api-error.js';
import { RawResponse } from '../http/types.js';
import { doDeleteAvatar, doUploadAvatar } from '../actions/avatars.js';
import { AVATAR_SIZES, avatarKey, avatarOwner, identiconPng, type AvatarKind } from '../lib/avatars.js';
import { avatarStore } from '../lib/storage/avatar-store.js';
import { avatarInfo, avatarUrl } from '../presenters/avatar.js';

const upload = authed(async (req) => {
  if (req.files.length !== 1) throw badRequest('You must upload exactly one avatar.');
  const after = await doUploadAvatar(req.app, req.realm, req.user, await req.files[0].read());
  return { avatar_url: avatarUrl(avatarInfo(after), { clientGravatar: false }) };
});

const remove = authed(async (req) => {
  const after = await doDeleteAvatar(req.app, req.realm, req.user);
  return { avatar_url: avatarUrl(avatarInfo(after), { clientGravatar: false }) };
});

// Public, like the original's avatar URLs: message lists and notifications embed them.
const image = noAuth(async (req) => {
  const realmId = Number(req.pathParams.realm_id);
  const userId = Number(req.pathParams.user_id);
  const m = /^(standard|medium)\.png$/.exec(req.pathParams.file);
  if (realmId !== req.realm.id || !m) throw notFound();
  const kind = m[1] as AvatarKind;
  const u = await avatarOwner(req.app.store.db, realmId, userId);
  if (!u) throw notFound();
  // The newest image is served whatever version was asked for; only the current version's URL may be cached for good.
  const current = req.params.str('version') === String(u.avatar_version);
  const headers = { 'content-type': 'image/png', 'cache-control': current ? 'public, max-age=31536000, immutable' : 'public, max-age=60' };
  if (u.avatar_source === 'G') {
    // Third-party avatars are not stored here: send the client where the avatar URL would have.
    const url = avatarUrl(avatarInfo(u), { clientGravatar: false, medium: kind === 'medium' })!;
    return new RawResponse(302, '', { location: url, 'cache-control': 'public, max-age=60' });
  }
  if (u.avatar_source === 'U') {
    const data = await avatarStore(req.app.config.dataDir).get(avatarKey(realmId, userId, u.avatar_version, kind));
    if (!data) throw notFound();
    return new RawResponse(200, data, headers);
  }
  return new RawResponse(200, await identiconPng(realmId, userId, AVATAR_SIZES[kind]), headers);
});

export const routes: RouteList = [
  ['users/me/avatar', { POST: acceptsFiles(upload, (c) => c.maxAvatarFileSizeMib * 1024 * 1024), DELETE: remove }],
  ['user_avatars/{realm_id:int}/{user_id:int}/{file}', { GET: image }],
];
