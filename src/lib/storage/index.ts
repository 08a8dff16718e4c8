// Where uploaded bytes live: a small interface (local directory today, an S3-compatible store later).
import fs from 'node:fs/promises';
import path from 'node:path';

export interface FileStorage {
  /** Stores the bytes under a key made of "/"-separated safe segments, replacing any existing object. */
  put(key: string, data: Buffer, contentType: string): Promise<void>;
  /** The bytes, or null when nothing is stored under the key. */
  get(key: string): Promise<Buffer | null>;
  /** Removes the object; a missing one is not an error. */
  delete(key: string): Promise<void>;
}

/** Files in a directory tree: the key is the relative path. */
export class LocalFileStorage implements FileStorage {
  constructor(readonly root: string) {}

  private file(key: string): string {
    const full = path.resolve(this.root, key);
    // Keys come from the server, but a key escaping the root must never touch other files.
    if (!full.startsWith(path.resolve(this.root) + path.sep)) throw new Error(`storage key outside the root: ${key}`);
    return full;
  }

  async put(key: string, data: Buffer): Promise<void> {
    const file = this.file(key);
    await fs.mkdir(path.dirname(file), { recursive: true });
    // Write then rename, so a reader never sees a half-written file.
    const tmp = `${file}.${process.pid}.tmp`;
    await fs.writeFile(tmp, data);
    await fs.rename(tmp, file);
  }

  async get(key: string): Promise<Buffer | null> {
    try {
      return await fs.readFile(this.file(key));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    await fs.rm(this.file(key), { force: true });
  }
}

const byRoot = new Map<string, FileStorage>();

/** One storage object per directory (several apps in one process, as in tests, each get their own). */
export function localStorageAt(root: string): FileStorage {
  let s = byRoot.get(root);
  if (!s) byRoot.set(root, (s = new LocalFileStorage(root)));
  return s;
}
