// File bytes as rows of stored_files (one row per object, the whole file in a BLOB/bytea), shared by every node on the database.
import type { Store, Tx } from '../../store/store.js';
import type { FileStorage } from './index.js';

export class DatabaseFileStorage implements FileStorage {
  constructor(
    private readonly store: Store,
    private readonly now: () => number,
  ) {}

  async put(key: string, data: Buffer, contentType: string, tx?: Tx): Promise<void> {
    const row = { key, content_type: contentType || 'application/octet-stream', size: data.length, data, created_at: this.now() };
    const run = (t: Tx) =>
      t
        .insertInto('stored_files')
        .values(row)
        .onConflict((oc) => oc.column('key').doUpdateSet({ content_type: row.content_type, size: row.size, data: row.data, created_at: row.created_at }))
        .execute();
    if (tx) await run(tx);
    // Through Store.write: on SQLite writes go through its group commit, never around it.
    else await this.store.write(run);
  }

  async get(key: string, tx?: Tx): Promise<Buffer | null> {
    const row = await (tx ?? this.store.db).selectFrom('stored_files').select('data').where('key', '=', key).executeTakeFirst();
    return row ? row.data : null;
  }

  async delete(key: string, tx?: Tx): Promise<void> {
    const run = (t: Tx) => t.deleteFrom('stored_files').where('key', '=', key).execute();
    if (tx) await run(tx);
    else await this.store.write(run);
  }
}
