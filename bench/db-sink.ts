// Direct database access for the bulk loader: prepared multi-row inserts in big transactions, on SQLite or PostgreSQL.
import Database from 'better-sqlite3';
import pg from 'pg';

export type Row = (string | number | null)[];

export interface Sink {
  dialect: 'sqlite' | 'postgres';
  all<T>(sql: string, params?: unknown[]): Promise<T[]>;
  exec(sql: string): Promise<void>;
  /** Inserts rows in one transaction with multi-row prepared statements; returns the row count. */
  insert(table: string, columns: string[], rows: Iterable<Row>): Promise<number>;
  /** Drops a table's secondary indexes and returns a function that recreates them (faster bulk loads). */
  dropIndexes(table: string): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

const placeholders = (cols: number, rows: number, pgStyle: boolean) => {
  const out: string[] = [];
  let n = 1;
  for (let r = 0; r < rows; r++) {
    const one: string[] = [];
    for (let c = 0; c < cols; c++) one.push(pgStyle ? `$${n++}` : '?');
    out.push(`(${one.join(',')})`);
  }
  return out.join(',');
};

export function sqliteSink(file: string): Sink {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = OFF');
  db.pragma('cache_size = -400000');
  db.pragma('temp_store = MEMORY');
  return {
    dialect: 'sqlite',
    async all<T>(sql: string, params: unknown[] = []) {
      return db.prepare(sql).all(...params) as T[];
    },
    async exec(sql: string) {
      db.exec(sql);
    },
    async insert(table, columns, rows) {
      const per = Math.max(1, Math.min(500, Math.floor(30000 / columns.length)));
      const head = `INSERT INTO ${table} (${columns.join(',')}) VALUES `;
      const big = db.prepare(head + placeholders(columns.length, per, false));
      const one = db.prepare(head + placeholders(columns.length, 1, false));
      let count = 0;
      db.transaction(() => {
        let batch: unknown[] = [];
        let inBatch = 0;
        for (const row of rows) {
          for (const v of row) batch.push(v);
          count++;
          if (++inBatch === per) {
            big.run(batch);
            batch = [];
            inBatch = 0;
          }
        }
        for (let i = 0; i < inBatch; i++) one.run(batch.slice(i * columns.length, (i + 1) * columns.length));
      })();
      return count;
    },
    async dropIndexes(table) {
      const idx = db.prepare(`SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL`).all(table) as { name: string; sql: string }[];
      for (const i of idx) db.exec(`DROP INDEX ${i.name}`);
      return async () => {
        for (const i of idx) db.exec(i.sql);
      };
    },
    async close() {
      db.exec('ANALYZE');
      db.pragma('wal_checkpoint(TRUNCATE)');
      db.close();
    },
  };
}

export async function pgSink(url: string): Promise<Sink> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  let stmt = 0;
  return {
    dialect: 'postgres',
    async all<T>(sql: string, params: unknown[] = []) {
      let n = 0;
      return (await client.query(sql.replace(/\?/g, () => `$${++n}`), params)).rows as T[];
    },
    async exec(sql: string) {
      await client.query(sql);
    },
    async insert(table, columns, rows) {
      const per = Math.max(1, Math.min(1000, Math.floor(60000 / columns.length)));
      const head = `INSERT INTO ${table} (${columns.join(',')}) VALUES `;
      const bigName = `bulk_${++stmt}`;
      const bigText = head + placeholders(columns.length, per, true);
      let count = 0;
      await client.query('BEGIN');
      try {
        let batch: unknown[] = [];
        let inBatch = 0;
        for (const row of rows) {
          for (const v of row) batch.push(v);
          count++;
          if (++inBatch === per) {
            await client.query({ name: bigName, text: bigText, values: batch });
            batch = [];
            inBatch = 0;
          }
        }
        if (inBatch) await client.query(head + placeholders(columns.length, inBatch, true), batch);
        await client.query('COMMIT');
      } catch (err) {
        await client.query('ROLLBACK');
        throw err;
      }
      return count;
    },
    async dropIndexes(table) {
      const r = await client.query<{ indexname: string; indexdef: string }>(
        `SELECT i.indexname, i.indexdef FROM pg_indexes i WHERE i.tablename = $1 AND i.schemaname = current_schema()
           AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conname = i.indexname)`,
        [table],
      );
      for (const i of r.rows) await client.query(`DROP INDEX ${i.indexname}`);
      return async () => {
        for (const i of r.rows) await client.query(i.indexdef);
      };
    },
    async close() {
      for (const t of ['users', 'streams', 'recipients', 'messages', 'subscriptions']) {
        await client.query(`SELECT setval(pg_get_serial_sequence('${t}', 'id'), (SELECT max(id) FROM ${t}))`);
      }
      await client.query('ANALYZE');
      await client.end();
    },
  };
}

/** Messages stored in a channel, read from the live database (durability check after the send runs). */
export async function countChannelMessages(target: { sqliteFile?: string; databaseUrl?: string }, streamId: number): Promise<number> {
  if (target.databaseUrl) {
    const client = new pg.Client({ connectionString: target.databaseUrl });
    await client.connect();
    try {
      return Number((await client.query('SELECT count(*) AS n FROM messages WHERE stream_id = $1', [streamId])).rows[0].n);
    } finally {
      await client.end();
    }
  }
  const db = new Database(target.sqliteFile!, { readonly: true });
  try {
    return Number((db.prepare('SELECT count(*) AS n FROM messages WHERE stream_id = ?').get(streamId) as { n: number }).n);
  } finally {
    db.close();
  }
}
