// Where uploaded bytes live: one FileStorage per app (app.files), a data-dir directory or the database (PARLEY_FILE_STORE).
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Tx } from '../../store/store.js';

/**
 * Keys are "/"-separated safe segments, "<area>/<…>" (lib/storage/keys.ts). A caller inside a
 * transaction passes it as `tx`: the database store must run there (SQLite has one connection, which
 * the transaction holds), and then the bytes commit or roll back with the rows naming them.
 */
export interface FileStorage {
  /** Stores the bytes under the key, replacing any existing object. */
  put(key: string, data: Buffer, contentType: string, tx?: Tx): Promise<void>;
  /** The bytes, or null when nothing is stored under the key. */
  get(key: string, tx?: Tx): Promise<Buffer | null>;
  /** Removes the object; a missing one is not an error. */
  delete(key: string, tx?: Tx): Promise<void>;
}

/** Files in a directory tree (the data directory): the key is the relative path. Transactions do not apply. */
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
      const code = (err as NodeJS.ErrnoException).code;
      // ENOTDIR/EISDIR: a key naming a directory, or passing through a file, names no object.
      if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'EISDIR') return null;
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    await fs.rm(this.file(key), { force: true });
  }
}
