// Table types of migration 029: file bytes kept in the database (lib/storage/database.ts).
import type { ColumnType } from 'kysely';

export interface StoredFileTable {
  /** "<area>/<…>", e.g. "uploads/<path id>", as the local store's path under the data directory. */
  key: string;
  content_type: string;
  /** PostgreSQL returns bigint as text. */
  size: ColumnType<number | string, number, number>;
  data: Buffer;
  created_at: number;
}

export interface FileTables {
  stored_files: StoredFileTable;
}
