// Storage keys of each kind of file: "<area>/<…>", which with the local store is the path under the data directory.
import { avatarKey, type AvatarKind } from '../avatars.js';

/** A message upload: "uploads/<path id>" (path IDs are "<realm>/<2 hex>/<random>/<name>"). */
export const uploadFileKey = (pathId: string): string => `uploads/${pathId}`;

/** One size of a user's uploaded avatar at one version. */
export const avatarFileKey = (realmId: number, userId: number, version: number, kind: AvatarKind): string => `avatars/${avatarKey(realmId, userId, version, kind)}`;

/** A custom emoji image (file names are "<time>-<hex>.<ext>", checked where they come from a URL). */
export const emojiFileKey = (realmId: number, fileName: string): string => `emoji/${realmId}/${fileName}`;

/** A data export made through the API: its file key is "<realm>/<random>/<name>.tar.gz". */
export const exportFileKey = (fileKey: string): string => `exports/${fileKey}`;
