// Where avatar images live: the shared file-storage interface, rooted at <data dir>/avatars/.
import path from 'node:path';
import { LocalFileStorage, type FileStorage } from './index.js';

const stores = new Map<string, FileStorage>();

/** One store per data directory (tests run several servers in one process); an S3-compatible store plugs in here. */
export function avatarStore(dataDir: string): FileStorage {
  let s = stores.get(dataDir);
  if (!s) stores.set(dataDir, (s = new LocalFileStorage(path.join(dataDir, 'avatars'))));
  return s;
}
