// Opens the SQLite database for Kysely: WAL settings, a cache of prepared statements (Kysely
// would otherwise prepare every statement again on every execution), rows made by sqlite-rows.ts.
import path from 'node:path';
import fs from 'node:fs';
import Database from 'better-sqlite3';
import type { SqliteDatabase, SqliteStatement } from 'kysely';
import { rowStatement } from './sqlite-rows.js';

export const SQLITE_FILE = 'parley.sqlite3';

/** Statements kept prepared; queries with IN lists of many lengths make distinct texts, so it is bounded. */
const STATEMENT_CACHE = 1000;

export interface OpenedSqlite {
  raw: Database.Database;
  /** What Kysely's SqliteDialect talks to. */
  database: SqliteDatabase;
  file: string;
}

export function openSqlite(dataDir: string): OpenedSqlite {
  fs.mkdirSync(dataDir, { recursive: true });
  const file = path.join(dataDir, SQLITE_FILE);
  const raw = new Database(file);
  raw.pragma('journal_mode = WAL');
  // NORMAL keeps every committed transaction across a process crash (the WAL is written before
  // COMMIT returns); only an operating-system crash can lose the last transactions.
  raw.pragma('synchronous = NORMAL');
  raw.pragma('foreign_keys = ON');
  raw.pragma('busy_timeout = 5000');
  raw.pragma('cache_size = -32000');
  raw.pragma('temp_store = MEMORY');
  // Checkpoints (which fsync) run on a worker thread instead, so they never stall the event loop.
  raw.pragma('wal_autocheckpoint = 0');
  const cache = new Map<string, SqliteStatement>();
  const database: SqliteDatabase = {
    close: () => raw.close(),
    prepare(sql: string): SqliteStatement {
      let st = cache.get(sql);
      if (st) {
        // Refresh its place so the most used statements stay.
        cache.delete(sql);
      } else {
        const prepared = raw.prepare(sql);
        st = prepared.reader ? rowStatement(prepared) : (prepared as unknown as SqliteStatement);
        if (cache.size >= STATEMENT_CACHE) cache.delete(cache.keys().next().value as string);
      }
      cache.set(sql, st);
      return st;
    },
  };
  return { raw, database, file };
}
