// Custom emoji: GET /realm/emoji, POST and DELETE /realm/emoji/{emoji_name}, and the image files.
import type { RouteList } from '../http/router.js';
import { acceptsFiles } from '../http/handlers.js';
import { endpoint, RawResponse } from '../http/endpoint.js';
import { badRequest, notFound } from '../core/api-error.js';
import { Type, id, loose, str } from '../core/param-types.js';
import { custom } from '../core/param-custom.js';
import { doAddRealmEmoji, doDeactivateRealmEmoji } from '../actions/realm-emoji.js';
import { emojiFileKey } from '../lib/storage/keys.js';
import { CONTENT_TYPES, MAX_EMOJI_FILE_BYTES, FILE_NAME_RE, normalizeEmojiName, realmEmojiDict } from '../lib/realm-emoji.js';

/** The emoji name in the path, URL-decoded; bad escapes and NUL bytes name no emoji. */
const emojiName = {
  emoji_name: custom(
    Type.String(),
    (raw) => {
      let name: string;
      try {
        name = decodeURIComponent(raw);
      } catch {
        throw badRequest('Invalid emoji name.');
      }
      if (name.includes('\0')) throw badRequest('Invalid emoji name.');
      return name;
    },
    { required: true, allowNul: true },
  ),
};

const RealmEmoji = loose(Type.Object({ id: Type.String(), name: Type.String(), source_url: Type.String(), deactivated: Type.Boolean(), author_id: Type.Union([Type.Integer(), Type.Null()]) }));

const list = endpoint({
  summary: 'Get all custom emoji',
  response: Type.Object({ emoji: Type.Record(Type.String(), RealmEmoji) }),
  run: async (req) => ({ emoji: await req.app.store.read((tx) => realmEmojiDict(tx, req.realm.id)) }),
});

const upload = endpoint({
  summary: 'Upload custom emoji',
  path: emojiName,
  response: Type.Object({}),
  run: async (req, a) => {
    const name = normalizeEmojiName(a.emoji_name);
    if (req.files.length !== 1) throw badRequest('You must upload exactly one file.');
    await doAddRealmEmoji(req.app, req.realm, req.user, name, await req.files[0].read());
    return {};
  },
});

const deactivate = endpoint({
  summary: 'Deactivate custom emoji',
  path: emojiName,
  response: Type.Object({}),
  run: async (req, a) => {
    await doDeactivateRealmEmoji(req.app, req.realm, req.user, a.emoji_name.trim().toLowerCase().replace(/ /g, '_'));
    return {};
  },
});

// Images are public, as in the original: message HTML embeds them for anyone who can read it.
const image = endpoint({
  summary: 'A custom emoji image',
  auth: 'none',
  path: { realm_id: id({ invalid: () => notFound() }), file: str({ required: true, invalid: () => notFound() }) },
  response: Type.Object({}),
  raw: 'image/*',
  run: async (req, a) => {
    const realmId = a.realm_id;
    const file = a.file;
    if (realmId !== req.realm.id || !FILE_NAME_RE.test(file)) throw notFound();
    const data = await req.app.files.get(emojiFileKey(realmId, file));
    if (!data) throw notFound();
    const ext = file.slice(file.lastIndexOf('.') + 1);
    return new RawResponse(200, data, { 'content-type': CONTENT_TYPES[ext], 'cache-control': 'public, max-age=31536000, immutable' });
  },
});

export const routes: RouteList = [
  ['realm/emoji', { GET: list }],
  ['realm/emoji/{emoji_name}', { POST: acceptsFiles(upload, () => MAX_EMOJI_FILE_BYTES), DELETE: deactivate }],
  ['user_avatars/{realm_id:int}/emoji/images/{file}', { GET: image }],
];
