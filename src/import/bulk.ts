// Multi-row INSERTs for imports: one statement text per chunk size (prepared once and reused on
// SQLite), values bound as parameters, no query building per chunk (building cost as much as running).
import { CompiledQuery, type Insertable } from 'kysely';
import type { DB } from '../store/schema.js';
import { storeOf, type Tx } from '../store/store.js';

/** SQLite allows 32,766 parameters per statement and PostgreSQL 65,535; stay well under both. */
const MAX_PARAMETERS = 30_000;
/** More rows per statement stopped paying off beyond this (SQLite, measured with npm run bench:import). */
const MAX_ROWS = 500;

const texts = new Map<string, string>();

/** "INSERT INTO t (a, b) VALUES (?, ?), (?, ?)" for n rows, in the dialect's placeholder style. */
function insertText(table: string, columns: string[], rows: number, postgres: boolean): string {
  const key = `${postgres ? 'pg' : 'sq'}|${table}|${columns.join(',')}|${rows}`;
  let text = texts.get(key);
  if (text) return text;
  let n = 0;
  const tuple = () => `(${columns.map(() => (postgres ? `$${++n}` : '?')).join(', ')})`;
  text = `INSERT INTO ${table} (${columns.join(', ')}) VALUES ${Array.from({ length: rows }, tuple).join(', ')}`;
  texts.set(key, text);
  return text;
}

/** Inserts every row in as few statements as the limits allow; all rows must have the first row's columns. */
export async function insertMany<T extends keyof DB & string>(tx: Tx, table: T, rows: Insertable<DB[T]>[]): Promise<void> {
  if (!rows.length) return;
  const columns = Object.keys(rows[0] as object);
  const postgres = storeOf(tx)?.dialect === 'postgres';
  const perStatement = Math.max(1, Math.min(MAX_ROWS, Math.floor(MAX_PARAMETERS / columns.length)));
  for (let i = 0; i < rows.length; i += perStatement) {
    const chunk = rows.slice(i, i + perStatement) as Record<string, unknown>[];
    const params: unknown[] = [];
    for (const row of chunk) for (const c of columns) params.push(row[c] ?? null);
    await tx.executeQuery(CompiledQuery.raw(insertText(table, columns, chunk.length, postgres), params));
  }
}
