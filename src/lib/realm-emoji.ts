// Custom emoji: names, image checks, file names, and the API form of a row.
import type { Tx } from '../store/store.js';
import type { RealmEmojiTable } from '../store/schema.js';
import type { Selectable } from 'kysely';
import { badRequest } from '../core/api-error.js';

export type RealmEmojiRow = Selectable<RealmEmojiTable>;

export const MAX_EMOJI_FILE_BYTES = 5 * 1024 * 1024;
export const MAX_EMOJI_NAME_LENGTH = 60;

/** Case and spaces do not matter: "Party Parrot" is stored as "party_parrot". */
export function normalizeEmojiName(raw: string): string {
  const name = raw.trim().toLowerCase().replace(/ /g, '_');
  if (!name) throw badRequest('Emoji name is missing');
  if (name.length > MAX_EMOJI_NAME_LENGTH || !/^[0-9a-z]([0-9a-z_-]*[0-9a-z])?$/.test(name)) throw badRequest('Invalid emoji name.');
  return name;
}

const SIGNATURES: [string, (b: Buffer) => boolean][] = [
  ['png', (b) => b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))],
  ['gif', (b) => b.subarray(0, 4).toString('latin1') === 'GIF8'],
  ['jpg', (b) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff],
  ['webp', (b) => b.subarray(0, 4).toString('latin1') === 'RIFF' && b.subarray(8, 12).toString('latin1') === 'WEBP'],
];

/** The image's extension from its first bytes (the declared type and name are not trusted). */
export function imageExtension(data: Buffer): string {
  for (const [ext, test] of SIGNATURES) if (data.length >= 12 && test(data)) return ext;
  throw badRequest('Invalid image format');
}

/** A GIF with more than one image descriptor is animated (a cheap scan; false positives only cost a flag). */
export function isAnimatedGif(data: Buffer): boolean {
  let frames = 0;
  for (let i = data.indexOf(0x2c); i >= 0 && frames < 2; i = data.indexOf(0x2c, i + 1)) if (data[i - 1] === 0x00) frames++;
  return frames > 1;
}

export const FILE_NAME_RE = /^\d+-[0-9a-f]{8}\.(png|gif|jpg|webp)$/;
export const CONTENT_TYPES: Record<string, string> = { png: 'image/png', gif: 'image/gif', jpg: 'image/jpeg', webp: 'image/webp' };

export function emojiUrl(r: Pick<RealmEmojiRow, 'realm_id' | 'file_name'>): string {
  return `/api/v1/user_avatars/${r.realm_id}/emoji/images/${r.file_name}`;
}

export function presentRealmEmoji(r: RealmEmojiRow): Record<string, unknown> {
  // No still frames are generated for animated images, so still_url is always null.
  return { id: String(r.id), name: r.name, source_url: emojiUrl(r), still_url: null, deactivated: r.deactivated === 1, author_id: r.author_id };
}

/** Every custom emoji of the organization, deactivated ones included, keyed by ID. */
export async function realmEmojiDict(tx: Tx, realmId: number): Promise<Record<string, Record<string, unknown>>> {
  const rows = await tx.selectFrom('realm_emoji').selectAll().where('realm_id', '=', realmId).orderBy('id').execute();
  return Object.fromEntries(rows.map((r) => [String(r.id), presentRealmEmoji(r)]));
}
