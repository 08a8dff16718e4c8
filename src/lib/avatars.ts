// Avatar images: the organization's default source, generated identicons, and resizing uploads.
import { createHash } from 'node:crypto';
import type { Realm } from '../store/schema.js';
import type { Tx } from '../store/store.js';
import { badRequest } from '../core/api-error.js';
import { realmSettings } from './realm-settings.js';

// sharp (libvips) is large: load it the first time an avatar is drawn or resized.
let sharpModule: Promise<typeof import('sharp').default> | null = null;
const loadSharp = () => (sharpModule ??= import('sharp').then((m) => m.default));

export type AvatarKind = 'standard' | 'medium';
export const AVATAR_SIZES: Record<AvatarKind, number> = { standard: 100, medium: 500 };

/** The source new users get (and users who delete their upload return to): G or J. */
export function defaultAvatarSource(realm: Pick<Realm, 'settings'>): 'G' | 'J' {
  return realmSettings(realm).default_avatar_source === 'J' ? 'J' : 'G';
}

/** Storage key of one uploaded image; the version is in it so a new upload never overwrites a served one. */
export function avatarKey(realmId: number, userId: number, version: number, kind: AvatarKind): string {
  return `${realmId}/${userId}/${version}-${kind}.png`;
}

/**
 * A symmetric 5×5 identicon: the left three columns come from a hash of the realm and user,
 * mirrored to the right, in one color from the same hash, on a light background.
 */
export async function identiconPng(realmId: number, userId: number, size: number): Promise<Buffer> {
  const h = createHash('sha256').update(`parley-identicon:${realmId}:${userId}`).digest();
  // Hue from the hash; saturation and lightness fixed so every icon is legible.
  const [r, g, b] = hslToRgb((h.readUInt16BE(0) % 360) / 360, 0.55, 0.5);
  const on: boolean[] = [];
  for (let i = 0; i < 15; i++) on.push(((h[2 + (i >> 3)] >> (i & 7)) & 1) === 1);
  const pad = Math.round(size / 10);
  const cell = Math.floor((size - 2 * pad) / 5);
  const pixels = Buffer.alloc(size * size * 3, 0xf0);
  for (let row = 0; row < 5; row++) {
    for (let col = 0; col < 5; col++) {
      if (!on[row * 3 + (col < 3 ? col : 4 - col)]) continue;
      for (let y = pad + row * cell; y < pad + (row + 1) * cell; y++) {
        for (let x = pad + col * cell; x < pad + (col + 1) * cell; x++) {
          const o = (y * size + x) * 3;
          pixels[o] = r;
          pixels[o + 1] = g;
          pixels[o + 2] = b;
        }
      }
    }
  }
  const sharp = await loadSharp();
  return sharp(pixels, { raw: { width: size, height: size, channels: 3 } }).png().toBuffer();
}

function hslToRgb(hue: number, s: number, l: number): [number, number, number] {
  const q = l < 0.5 ? l * (1 + s) : l + s - l * s;
  const p = 2 * l - q;
  const channel = (t: number) => {
    const x = t < 0 ? t + 1 : t > 1 ? t - 1 : t;
    const v = x < 1 / 6 ? p + (q - p) * 6 * x : x < 1 / 2 ? q : x < 2 / 3 ? p + (q - p) * (2 / 3 - x) * 6 : p;
    return Math.round(v * 255);
  };
  return [channel(hue + 1 / 3), channel(hue), channel(hue - 1 / 3)];
}

export const badImage = () => badRequest('Could not decode image; did you upload an image file?');

/** Square PNGs at both sizes, cropped to the center; anything sharp cannot decode is refused. */
export async function resizeAvatar(data: Buffer): Promise<Record<AvatarKind, Buffer>> {
  const sharp = await loadSharp();
  try {
    const meta = await sharp(data).metadata();
    if (!meta.width || !meta.height) throw badImage();
    const out = async (size: number) => sharp(data).rotate().resize(size, size, { fit: 'cover' }).png().toBuffer();
    return { standard: await out(AVATAR_SIZES.standard), medium: await out(AVATAR_SIZES.medium) };
  } catch {
    throw badImage();
  }
}

/** What serving a user's avatar image needs of the row. */
export function avatarOwner(db: Tx, realmId: number, userId: number) {
  return db
    .selectFrom('users')
    .select(['id', 'realm_id', 'email', 'delivery_email', 'avatar_source', 'avatar_version'])
    .where('id', '=', userId)
    .where('realm_id', '=', realmId)
    .executeTakeFirst();
}
