// Custom emoji: GET /realm/emoji, POST and DELETE /realm/emoji/{emoji_name}, and the image files.
import fs from 'node:fs';
import path from 'node:path';
import type { RouteList } from '../http/router.js';
import { acceptsFiles, authed, noAuth } from '../http/handlers.js';
import { badRequest, notFound } from '../core/api-error.js';
import { RawResponse } from '../http/types.js';
import { doAddRealmEmoji, doDeactivateRealmEmoji } from '../actions/realm-emoji.js';
import { CONTENT_TYPES, MAX_EMOJI_FILE_BYTES, emojiDir, FILE_NAME_RE, normalizeEmojiName, realmEmojiDict } from '../lib/realm-emoji.js';

function pathName(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw badRequest('Invalid emoji name.');
  }
}

const list = authed(async (req) => ({ emoji: await req.app.store.read((tx) => realmEmojiDict(tx, req.realm.id)) }));

const upload = authed(async (req) => {
  const name = normalizeEmojiName(pathName(req.pathParams.emoji_name));
  if (req.files.length !== 1) throw badRequest('You must upload exactly one file.');
  await doAddRealmEmoji(req.app, req.realm, req.user, name, await req.files[0].read());
  return {};
});

const deactivate = authed(async (req) => {
  const raw = pathName(req.pathParams.emoji_name);
  await doDeactivateRealmEmoji(req.app, req.realm, req.user, raw.trim().toLowerCase().replace(/ /g, '_'));
  return {};
});

// Images are public, as in the original: message HTML embeds them for anyone who can read it.
const image = noAuth(async (req) => {
  const realmId = Number(req.pathParams.realm_id);
  const file = req.pathParams.file;
  if (realmId !== req.realm.id || !FILE_NAME_RE.test(file)) throw notFound();
  let data: Buffer;
  try {
    data = fs.readFileSync(path.join(emojiDir(req.app.config.dataDir, realmId), file));
  } catch {
    throw notFound();
  }
  const ext = file.slice(file.lastIndexOf('.') + 1);
  return new RawResponse(200, data, { 'content-type': CONTENT_TYPES[ext], 'cache-control': 'public, max-age=31536000, immutable' });
});

export const routes: RouteList = [
  ['realm/emoji', { GET: list }],
  ['realm/emoji/{emoji_name}', { POST: acceptsFiles(upload, () => MAX_EMOJI_FILE_BYTES), DELETE: deactivate }],
  ['user_avatars/{realm_id:int}/emoji/images/{file}', { GET: image }],
];
