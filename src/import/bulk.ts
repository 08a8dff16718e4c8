// Multi-row INSERTs in chunks that stay under both databases' limit on statement parameters.
import type { Insertable } from 'kysely';
import type { DB } from '../store/schema.js';
import type { Tx } from '../store/store.js';

/** SQLite allows 32,766 parameters per statement and PostgreSQL 65,535; stay well under both. */
const MAX_PARAMETERS = 30_000;

/** Inserts every row, as few statements as the parameter limit allows; rows must share their columns. */
export async function insertMany<T extends keyof DB & string>(tx: Tx, table: T, rows: Insertable<DB[T]>[]): Promise<void> {
  if (!rows.length) return;
  const columns = Object.keys(rows[0] as object).length || 1;
  const perStatement = Math.max(1, Math.floor(MAX_PARAMETERS / columns));
  for (let i = 0; i < rows.length; i += perStatement) {
    // Kysely's insert types are per table; the generic table name loses them, the rows keep them.
    await tx
      .insertInto(table)
      .values(rows.slice(i, i + perStatement) as never)
      .execute();
  }
}
