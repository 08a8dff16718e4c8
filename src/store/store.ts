// Database access: opens SQLite or PostgreSQL through Kysely, runs write transactions that yield a
// commit stamp, and consistent reads that yield a snapshot, so event queues can tell which events
// a snapshot already reflects.
import fs from 'node:fs';
import path from 'node:path';
import { Kysely, PostgresDialect, SqliteDialect, sql, type Transaction } from 'kysely';
import Database from 'better-sqlite3';
import pg from 'pg';
import type { DB } from './schema.js';
import type { Dialect } from './dialect.js';
import { migrate } from './migrate.js';

export type Tx = Transaction<DB> | Kysely<DB>;

/**
 * Identifies the commit that produced an event. SQLite: a per-process commit counter (writes are
 * serialized on one connection). PostgreSQL: the writing transaction's id.
 */
export type CommitStamp = { kind: 'seq'; seq: number } | { kind: 'xid'; xid: string };

/** What a consistent read saw; isVisible(stamp) is true when that commit is already reflected. */
export interface ReadSnapshot {
  isVisible(stamp: CommitStamp): boolean;
  toJSON(): unknown;
}

export function snapshotFromJSON(json: unknown): ReadSnapshot | null {
  if (!json || typeof json !== 'object') return null;
  const j = json as { kind?: string; seq?: number; snap?: string };
  if (j.kind === 'seq' && typeof j.seq === 'number') return seqSnapshot(j.seq);
  if (j.kind === 'pg' && typeof j.snap === 'string') return pgSnapshot(j.snap);
  return null;
}

function seqSnapshot(seq: number): ReadSnapshot {
  return {
    isVisible: (s) => s.kind === 'seq' && s.seq <= seq,
    toJSON: () => ({ kind: 'seq', seq }),
  };
}

/** PostgreSQL snapshot text "xmin:xmax:xip,…": a transaction is visible when it committed before the snapshot. */
function pgSnapshot(snap: string): ReadSnapshot {
  const [xminText, xmaxText, xipText] = snap.split(':');
  const xmin = BigInt(xminText);
  const xmax = BigInt(xmaxText);
  const inProgress = new Set((xipText ?? '').split(',').filter(Boolean));
  return {
    isVisible: (s) => {
      if (s.kind !== 'xid') return false;
      const xid = BigInt(s.xid);
      if (xid < xmin) return true;
      if (xid >= xmax) return false;
      return !inProgress.has(s.xid);
    },
    toJSON: () => ({ kind: 'pg', snap }),
  };
}

export class Store {
  private commitSeq = 0;

  private constructor(
    readonly db: Kysely<DB>,
    readonly dialect: Dialect,
    private readonly onClose: () => Promise<void>,
  ) {}

  /** Opens (and migrates) the database: PostgreSQL when a URL is given, else SQLite in dataDir. */
  static async open(opts: { databaseUrl: string; dataDir: string; poolSize?: number }): Promise<Store> {
    if (opts.databaseUrl) {
      const pool = new pg.Pool({ connectionString: opts.databaseUrl, max: opts.poolSize ?? 10 });
      // An idle connection that the server drops (restart, failover) must not crash the process;
      // the pool replaces it on the next checkout.
      pool.on('error', (err) => process.stderr.write(`postgres: idle connection lost: ${err.message}\n`));
      const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
      const store = new Store(db, 'postgres', () => db.destroy());
      await migrate(db as unknown as Kysely<unknown>, 'postgres');
      return store;
    }
    fs.mkdirSync(opts.dataDir, { recursive: true });
    const sqlite = new Database(path.join(opts.dataDir, 'parley.sqlite3'));
    sqlite.pragma('journal_mode = WAL');
    // NORMAL keeps every committed transaction across a process crash (WAL is written before commit
    // returns); only an operating-system crash can lose the last transactions.
    sqlite.pragma('synchronous = NORMAL');
    sqlite.pragma('foreign_keys = ON');
    sqlite.pragma('busy_timeout = 5000');
    sqlite.pragma('cache_size = -32000');
    const db = new Kysely<DB>({ dialect: new SqliteDialect({ database: sqlite }) });
    const store = new Store(db, 'sqlite', () => db.destroy());
    await migrate(db as unknown as Kysely<unknown>, 'sqlite');
    return store;
  }

  /**
   * Runs fn in one transaction and returns its result with the commit's stamp. Events describing
   * the change must be published with that stamp only after this resolves (after commit).
   */
  async write<T>(fn: (tx: Transaction<DB>) => Promise<T>): Promise<{ result: T; stamp: CommitStamp }> {
    let stamp: CommitStamp | undefined;
    const result = await this.db.transaction().execute(async (tx) => {
      const r = await fn(tx);
      if (this.dialect === 'postgres') {
        const row = await sql<{ xid: string }>`SELECT pg_current_xact_id()::text AS xid`.execute(tx);
        stamp = { kind: 'xid', xid: row.rows[0].xid };
      } else {
        // The single SQLite connection is held until commit, so no reader sees this counter value
        // before the commit it names is visible.
        stamp = { kind: 'seq', seq: ++this.commitSeq };
      }
      return r;
    });
    return { result, stamp: stamp! };
  }

  /** Runs fn in one read transaction with a stable view, reporting which commits that view includes. */
  async read<T>(fn: (tx: Transaction<DB>, snapshot: ReadSnapshot) => Promise<T>): Promise<T> {
    if (this.dialect === 'postgres') {
      return this.db
        .transaction()
        .setIsolationLevel('repeatable read')
        .execute(async (tx) => {
          const row = await sql<{ snap: string }>`SELECT pg_current_snapshot()::text AS snap`.execute(tx);
          return fn(tx, pgSnapshot(row.rows[0].snap));
        });
    }
    return this.db.transaction().execute(async (tx) => fn(tx, seqSnapshot(this.commitSeq)));
  }

  async close(): Promise<void> {
    await this.onClose();
  }
}
