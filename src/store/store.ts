// Database access: opens SQLite or PostgreSQL through Kysely, runs write transactions that yield a
// commit stamp, and consistent reads that yield a snapshot, so event queues can tell which events
// a snapshot already reflects.
import { Kysely, PostgresDialect, SqliteDialect, sql, type Transaction } from 'kysely';
import { openSqlite, type OpenedSqlite } from './sqlite-connection.js';
import { namedStatementPool } from './pg-statements.js';
import { startCheckpointer } from './checkpoint-control.js';
import type { DB } from './schema.js';
import type { Dialect } from './dialect.js';
import { migrate, pendingMigrations } from './migrate.js';

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

interface PendingWrite {
  fn: (tx: Transaction<DB>) => Promise<unknown>;
  resolve: (v: { result: unknown; stamp: CommitStamp }) => void;
  reject: (e: unknown) => void;
}

/** Writes committed together at most (group commit); each still succeeds or fails on its own. */
const MAX_GROUP = 64;

/** The after-commit callbacks (whenCommitted) of the write now running in each open Store.write transaction. */
const afterCommitByTx = new WeakMap<Tx, (() => void)[]>();

/**
 * Runs fn once this write has committed, before its caller resumes; never if it rolls back.
 * Outside Store.write fn runs at once: whatever a read or plain handle saw was committed. For
 * memos of rows read inside a write, which may not outlive it.
 */
export function whenCommitted(tx: Tx, fn: () => void): void {
  const callbacks = afterCommitByTx.get(tx);
  if (callbacks) callbacks.push(fn);
  else fn();
}

/** PostgreSQL: transaction IDs that a statement of the write already returned (pg_current_xact_id()). */
const knownXids = new WeakMap<Tx, string>();

/**
 * PostgreSQL: a statement of this write returned `pg_current_xact_id()::text` (the top-level
 * transaction's ID, also inside a savepoint), so the commit stamp needs no query of its own.
 */
export function noteTransactionId(tx: Tx, xid: string): void {
  knownXids.set(tx, xid);
}

/** The Store each database handle and transaction belongs to, for per-database memos (storeOf). */
const owners = new WeakMap<Tx, Store>();

/**
 * The Store a handle or transaction came from (undefined for one made elsewhere). Memos of rows
 * that never change key on it: one process may open several databases (tests, tools).
 */
export function storeOf(tx: Tx): Store | undefined {
  return owners.get(tx);
}

/**
 * SQLite transaction statements for the group commit, prepared once on the raw connection (Kysely
 * would build each from a template per write), run while the group holds Kysely's connection.
 */
interface WriteStatements {
  /** Takes the write lock without waiting; false when another connection holds it. */
  tryBegin(): boolean;
  /** How long a group tries for the lock before it fails as SQLite's busy handler would have. */
  lockWaitMs: number;
  commit(): void;
  rollback(): void;
  savepoint(): void;
  release(): void;
  rollbackToSavepoint(): void;
  /** Runs an INSERT prepared once on the raw connection; returns the new rowid. */
  insert(sqlText: string, params: unknown[]): number;
  /** Runs any statement prepared once on the raw connection; returns the rows it changed. */
  run(sqlText: string, params: unknown[]): number;
}

/** How long a group waits before trying again for a write lock that another connection holds. */
const LOCK_RETRY_MS = 1;

export class Store {
  /**
   * SQLite commit stamps. Starts from the clock in microseconds, so stamps keep growing across
   * restarts (a stored queue's register snapshot compares them with stamps in the event log).
   */
  private commitSeq = Date.now() * 1000;
  private readonly pending: PendingWrite[] = [];
  /** The migrations that opening this database applied (empty when it was already current). */
  appliedMigrations: string[] = [];
  private flushing = false;

  private constructor(
    readonly db: Kysely<DB>,
    readonly dialect: Dialect,
    private readonly onClose: () => Promise<void>,
    /** Called after each SQLite group commit (starts WAL checkpointing once the WAL has grown). */
    private readonly afterCommit: () => void = () => {},
    private readonly statements?: WriteStatements,
  ) {
    owners.set(db, this);
  }

  /** Opens (and migrates) the database: PostgreSQL when a URL is given, else SQLite in dataDir. */
  /** lockWaitMs (SQLite): how long a write waits for a lock another connection holds; the connection's busy timeout by default. */
  /** warn: where trouble that does not stop the store is reported (the process's logger; stderr by default). */
  static async open(opts: { databaseUrl: string; dataDir: string; poolSize?: number; lockWaitMs?: number; warn?: (msg: string) => void }): Promise<Store> {
    const warn = opts.warn ?? ((m: string) => process.stderr.write(m + '\n'));
    if (opts.databaseUrl) {
      // Loaded only when used: a default (SQLite) server does not carry the PostgreSQL client.
      const { default: pg } = await import('pg');
      const pool = new pg.Pool({ connectionString: opts.databaseUrl, max: opts.poolSize ?? 10 });
      // An idle connection that the server drops (restart, failover) must not crash the process;
      // the pool replaces it on the next checkout.
      pool.on('error', (err) => warn(`postgres: idle connection lost: ${err.message}`));
      // JIT compilation pays off for long analytical queries, not for ours: on a 1,000-user
      // organization it made POST /register take ~160 ms instead of ~55 (the compile, each time).
      // Sent before the connection's first statement (a client runs its queries in order).
      pool.on('connect', (client) => void client.query('SET jit = off').catch(() => {}));
      const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool: namedStatementPool(pool) }) });
      const store = new Store(db, 'postgres', () => db.destroy());
      store.appliedMigrations = await migrate(db as unknown as Kysely<unknown>, 'postgres');
      return store;
    }
    const sqlite = openSqlite(opts.dataDir);
    const db = new Kysely<DB>({ dialect: new SqliteDialect({ database: sqlite.database }) });
    const checkpointer = startCheckpointer(sqlite.file, warn);
    const store = new Store(
      db,
      'sqlite',
      async () => {
        await checkpointer.stop();
        await db.destroy();
      },
      () => checkpointer.poke(),
      writeStatements(sqlite.raw, opts.lockWaitMs),
    );
    store.appliedMigrations = await migrate(db as unknown as Kysely<unknown>, 'sqlite');
    return store;
  }

  /** Names of the migrations not applied to this database (none once open() has run, unless another node's code is newer). */
  pendingMigrations(): Promise<string[]> {
    return pendingMigrations(this.db as unknown as Kysely<unknown>);
  }

  /**
   * Runs fn in one transaction and returns its result with the commit's stamp. Events describing
   * the change must be published with that stamp only after this resolves (after commit).
   *
   * On SQLite, writes that arrive while others run are committed together (group commit): each
   * runs in its own savepoint, so a failing one rolls back alone, and one commit serves all.
   * A write may leave callbacks for just after its commit (whenCommitted); a failed write's are
   * dropped.
   */
  write<T>(fn: (tx: Transaction<DB>) => Promise<T>): Promise<{ result: T; stamp: CommitStamp }> {
    if (this.dialect === 'postgres') return this.writePostgres(fn);
    return new Promise((resolve, reject) => {
      this.pending.push({ fn, resolve: resolve as PendingWrite['resolve'], reject });
      if (!this.flushing) {
        this.flushing = true;
        // Wait for the I/O phase to end: requests that arrived together then commit together.
        setImmediate(() => void this.flush());
      }
    });
  }

  private async writePostgres<T>(fn: (tx: Transaction<DB>) => Promise<T>): Promise<{ result: T; stamp: CommitStamp }> {
    let stamp: CommitStamp | undefined;
    const callbacks: (() => void)[] = [];
    const result = await this.db.transaction().execute(async (tx) => {
      owners.set(tx, this);
      afterCommitByTx.set(tx, callbacks);
      const r = await fn(tx);
      afterCommitByTx.delete(tx);
      const xid = knownXids.get(tx) ?? (await sql<{ xid: string }>`SELECT pg_current_xact_id()::text AS xid`.execute(tx)).rows[0].xid;
      stamp = { kind: 'xid', xid };
      return r;
    });
    for (const fn of callbacks) fn();
    return { result, stamp: stamp! };
  }

  private async flush(): Promise<void> {
    this.flushing = true;
    try {
      while (this.pending.length) {
        const group = this.pending.splice(0, MAX_GROUP);
        const outcomes: ({ ok: true; value: unknown } | { ok: false; error: unknown })[] = [];
        let stamp: CommitStamp | undefined;
        const callbacks: (() => void)[] = [];
        try {
          // Another connection (the search-index merger, a command-line tool) may hold the write
          // lock for a few milliseconds: the group waits for it here, with the event loop free and
          // reads going on, instead of in SQLite's busy handler, which sleeps on this thread.
          const since = Date.now();
          while (!(stamp = await this.db.connection().execute((tx) => this.runGroup(tx as Transaction<DB>, group, outcomes, callbacks)))) {
            if (Date.now() - since >= this.statements!.lockWaitMs) throw Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' });
            await new Promise((r) => setTimeout(r, LOCK_RETRY_MS));
          }
        } catch (error) {
          // The commit failed (or a lone write threw and was rolled back): nothing of the group was kept.
          for (const w of group) w.reject(error);
          continue;
        }
        this.afterCommit();
        for (const fn of callbacks) fn();
        group.forEach((w, i) => {
          const o = outcomes[i];
          if (o.ok) w.resolve({ result: o.value, stamp: stamp! });
          else w.reject(o.error);
        });
      }
    } finally {
      this.flushing = false;
    }
  }

  /**
   * Runs a group's writes in one SQLite transaction on the held connection and commits it, returning
   * the commit's stamp; undefined, having run nothing, when the write lock is taken. Each write of
   * several runs in a savepoint, so a failing one rolls back alone; a lone write that throws rolls
   * back the transaction and throws.
   */
  private async runGroup(tx: Transaction<DB>, group: PendingWrite[], outcomes: ({ ok: true; value: unknown } | { ok: false; error: unknown })[], callbacks: (() => void)[]): Promise<CommitStamp | undefined> {
    const st = this.statements!;
    if (!st.tryBegin()) return undefined;
    owners.set(tx, this);
    try {
      if (group.length === 1) {
        // Alone, a write needs no savepoint: if it throws, the whole transaction rolls back.
        afterCommitByTx.set(tx, callbacks);
        outcomes.push({ ok: true, value: await group[0].fn(tx) });
      } else {
        for (const w of group) {
          const own: (() => void)[] = [];
          afterCommitByTx.set(tx, own);
          st.savepoint();
          try {
            const value = await w.fn(tx);
            st.release();
            callbacks.push(...own);
            outcomes.push({ ok: true, value });
          } catch (error) {
            st.rollbackToSavepoint();
            st.release();
            outcomes.push({ ok: false, error });
          }
        }
      }
      afterCommitByTx.delete(tx);
      // Kysely's connection is held until the commit, so no reader sees this counter value before
      // the commit it names is visible.
      const stamp: CommitStamp = { kind: 'seq', seq: ++this.commitSeq };
      st.commit();
      return stamp;
    } catch (error) {
      afterCommitByTx.delete(tx);
      st.rollback();
      throw error;
    }
  }

  /**
   * SQLite, inside a write (its group holds the one connection): runs an INSERT as a statement
   * prepared once on the raw connection, without the query builder's per-statement cost; returns
   * the new rowid. For the hottest inserts only (the event log's row of every send).
   */
  sqliteInsert(sqlText: string, params: unknown[]): number {
    return this.statements!.insert(sqlText, params);
  }

  /** SQLite, inside a write: runs a statement prepared once on the raw connection (as sqliteInsert); returns the rows changed. */
  sqliteRun(sqlText: string, params: unknown[]): number {
    return this.statements!.run(sqlText, params);
  }

  /**
   * Inside a write: the stamp its commit will carry, as text (SQLite: groups commit one at a time,
   * so it is the next commit number); null on PostgreSQL, where SQL reads pg_current_xact_id().
   */
  pendingStampText(): string | null {
    return this.dialect === 'sqlite' ? String(this.commitSeq + 1) : null;
  }

  /** Runs fn in one read transaction with a stable view, reporting which commits that view includes. */
  async read<T>(fn: (tx: Transaction<DB>, snapshot: ReadSnapshot) => Promise<T>): Promise<T> {
    if (this.dialect === 'postgres') {
      return this.db
        .transaction()
        .setIsolationLevel('repeatable read')
        .execute(async (tx) => {
          owners.set(tx, this);
          const row = await sql<{ snap: string }>`SELECT pg_current_snapshot()::text AS snap`.execute(tx);
          return fn(tx, pgSnapshot(row.rows[0].snap));
        });
    }
    return this.db.transaction().execute(async (tx) => {
      owners.set(tx, this);
      return fn(tx, seqSnapshot(this.commitSeq));
    });
  }

  async close(): Promise<void> {
    // Writes already accepted finish before the database closes.
    while (this.flushing || this.pending.length) await new Promise((r) => setTimeout(r, 5));
    await this.onClose();
  }
}

/**
 * The group commit's statements on the raw SQLite connection. BEGIN IMMEDIATE takes the write lock
 * at once; it runs with no busy timeout, so a lock held elsewhere is reported instead of waited for
 * on this thread. Everything else keeps the connection's timeout.
 */
function writeStatements(raw: OpenedSqlite['raw'], lockWaitMs?: number): WriteStatements {
  const begin = raw.prepare('BEGIN IMMEDIATE');
  const commit = raw.prepare('COMMIT');
  const rollback = raw.prepare('ROLLBACK');
  const savepoint = raw.prepare('SAVEPOINT w');
  const release = raw.prepare('RELEASE w');
  const rollbackTo = raw.prepare('ROLLBACK TO w');
  // pragma() prepares its statement on every call, and must: SQLite sets the busy timeout while
  // compiling the pragma, so a prepared one run again would not set it again.
  const timeout = Number(raw.pragma('busy_timeout', { simple: true }));
  const prepared = new Map<string, ReturnType<typeof raw.prepare>>();
  const statement = (sqlText: string) => {
    let st = prepared.get(sqlText);
    if (!st) prepared.set(sqlText, (st = raw.prepare(sqlText)));
    return st as unknown as { run(...values: unknown[]): { lastInsertRowid: number | bigint; changes: number } };
  };
  return {
    lockWaitMs: lockWaitMs ?? timeout,
    tryBegin() {
      raw.pragma('busy_timeout = 0');
      try {
        begin.run();
        return true;
      } catch (err) {
        if ((err as { code?: string }).code === 'SQLITE_BUSY') return false;
        throw err;
      } finally {
        raw.pragma(`busy_timeout = ${timeout}`);
      }
    },
    commit: () => void commit.run(),
    // A statement error may already have rolled the transaction back (SQLite does for some, such as a full disk).
    rollback: () => void (raw.inTransaction && rollback.run()),
    savepoint: () => void savepoint.run(),
    release: () => void release.run(),
    rollbackToSavepoint: () => void rollbackTo.run(),
    insert: (sqlText, params) => Number(statement(sqlText).run(...params).lastInsertRowid),
    run: (sqlText, params) => statement(sqlText).run(...params).changes,
  };
}
