// SQLite: a large import drops the secondary indexes of the tables it fills most and builds them again
// before its transaction commits (one sort per index instead of a B-tree insertion per row).
import { sql, type Transaction } from 'kysely';
import type { DB } from '../store/schema.js';

/** Tables whose secondary indexes are rebuilt after a large import. */
const TABLES = ['messages'] as const;

interface SavedIndex {
  name: string;
  sql: string;
}

/**
 * Drops the indexes when the import brings more messages than the server already holds (rebuilding
 * reads every existing row, so a small import into a big server keeps them). Readers are unaffected:
 * they see the last committed state, which has every index, and the rebuild commits with the rows.
 * Returns what restoreIndexes needs (nothing when the indexes stay).
 */
export async function dropIndexesForImport(tx: Transaction<DB>, importedMessages: number): Promise<SavedIndex[]> {
  const { rows: existing } = await sql<{ n: number | null }>`SELECT max(id) AS n FROM messages`.execute(tx);
  if (importedMessages < Math.max(DEFERRED_INDEX_THRESHOLD, Number(existing[0]?.n ?? 0))) return [];
  const saved: SavedIndex[] = [];
  for (const table of TABLES) {
    // sql IS NULL: the indexes behind PRIMARY KEY and UNIQUE constraints, which cannot be dropped.
    const { rows } = await sql<SavedIndex>`SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ${table} AND sql IS NOT NULL ORDER BY name`.execute(tx);
    saved.push(...rows);
  }
  for (const index of saved) await sql`DROP INDEX ${sql.id(index.name)}`.execute(tx);
  return saved;
}

/** Builds the dropped indexes again with their own definitions. */
export async function restoreIndexes(tx: Transaction<DB>, saved: SavedIndex[]): Promise<void> {
  for (const index of saved) await sql.raw(index.sql).execute(tx);
}

/** Below this many messages, keeping the indexes costs less than building them again. */
const DEFERRED_INDEX_THRESHOLD = 50_000;
