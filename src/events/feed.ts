// This node's side of the event log: appends committed notices, publishes them, and hands every
// row to the queue registry exactly once and in id order, whether it came from this node, the bus
// or the log itself (after a gap, a bus outage or a restart).
import type { Store, CommitStamp, Tx } from '../store/store.js';
import type { EventBus } from './bus.js';
import type { QueueRegistry } from './registry.js';
import type { Outgoing } from './types.js';
import { NOTICES_PER_ROW, batchOfRow, compactBody, fillRecipients, insertLogRow, maxLogId, noticesOf, pruneLog, readLog, stampText, type LogBatch } from './event-log.js';

/** How long an out-of-order row waits for the ones before it before the log is read. */
const GAP_WAIT_MS = 5;
/** How often a node on a shared bus looks in the log for rows it was not told of. */
const POLL_MS = 1000;
/** How often rows that no queue needs are deleted, and how old (seconds) a row must be. */
const PRUNE_MS = 60_000;
const KEEP_SECS = 600;

/** A row written inside its transaction (logInTransaction), published once that commits. */
export interface PendingRow {
  id: number;
  realmId: number;
  /** The notices' text for the bus (empty on a single node, which has no use for it). */
  body: string;
  notices: Outgoing[];
}

export class EventFeed {
  /** The last row handed to the registry. */
  private pos = 0;
  /** Rows that arrived ahead of a missing one. */
  private readonly ahead = new Map<number, LogBatch>();
  private gapTimer: NodeJS.Timeout | null = null;
  private pollTimer: NodeJS.Timeout | null = null;
  private pruneTimer: NodeJS.Timeout | null = null;
  /** The last row delivered at each prune tick, oldest first (see prune). */
  private readonly marks: { at: number; id: number }[] = [];
  private reading: Promise<void> | null = null;
  private readAgain = false;
  private closed = false;
  /** Only a server delivers (a command-line tool's app logs and publishes, and has no queues). */
  private started = false;

  constructor(
    private readonly store: Store,
    private readonly bus: EventBus,
    private readonly queues: QueueRegistry,
    private readonly clock: { now(): number },
    private readonly onError: (err: unknown) => void,
  ) {}

  /** Starts after every row already in the log (queues restored from the database rebuild from it). */
  async start(): Promise<void> {
    this.started = true;
    this.pos = await maxLogId(this.store.db);
    this.queues.startedPos = this.pos * NOTICES_PER_ROW + NOTICES_PER_ROW - 1;
    this.bus.subscribe(
      (b) => this.receive(b),
      (id) => id <= this.pos || this.ahead.has(id),
    );
    this.bus.onReconnect(() => this.catchUp());
    if (this.bus.shared) {
      this.pollTimer = setInterval(() => this.catchUp(), POLL_MS);
      this.pollTimer.unref();
    }
    this.pruneTimer = setInterval(() => void this.prune().catch(this.onError), PRUNE_MS);
    this.pruneTimer.unref();
  }

  /**
   * Deletes log rows older than KEEP_SECS that no stored queue needs. How old a row is comes from
   * marks this node takes every PRUNE_MS (the last row it had delivered, and when), so finding the
   * cut needs no scan of the log by time.
   */
  private async prune(): Promise<void> {
    const now = this.clock.now();
    this.marks.push({ at: now, id: this.pos });
    let cut = 0;
    while (this.marks.length && this.marks[0].at <= now - KEEP_SECS) cut = this.marks.shift()!.id;
    if (cut > 0) await pruneLog(this.store, cut);
  }

  /**
   * Records notices of a transaction that committed without them (the common path of actions:
   * publishCommitted) in their own write just after, then delivers them. A poll that asks for
   * what is there (dont_block) waits for this.
   */
  append(realmId: number, stamp: CommitStamp | null, items: Outgoing[]): void {
    const compact = compactBody(items);
    const body = compact === null || this.bus.shared ? JSON.stringify(items) : '';
    this.queues.beginPublish();
    this.store
      .write((tx) => insertLogRow(this.store, tx, realmId, stampText(stamp), compact ?? body, this.clock.now(), false))
      .then(
        ({ result: id }) => this.committed({ id, realmId, stamp, notices: items }, body),
        (err: unknown) => this.onError(err),
      )
      .finally(() => this.queues.endPublish());
  }

  /**
   * Records notices inside the transaction that makes them true (one statement): a crash after the
   * commit loses none. Call committed() with the commit's stamp once it is done.
   */
  async logInTransaction(tx: Tx, realmId: number, items: Outgoing[]): Promise<PendingRow | null> {
    const kept = items.filter((i) => i.users.length || i.publicStreamId !== undefined);
    if (!kept.length) return null;
    const compact = compactBody(kept);
    const full = compact === null || this.bus.shared ? JSON.stringify(kept) : '';
    const id = await insertLogRow(this.store, tx, realmId, this.store.pendingStampText(), compact ?? full, this.clock.now(), true);
    return { id, realmId, body: full, notices: kept };
  }

  /** A row written by a statement of its own (PostgreSQL's one-statement send) committed: as published(). */
  committedRow(id: number, realmId: number, notices: Outgoing[], stamp: CommitStamp): void {
    this.committed({ id, realmId, stamp, notices }, this.bus.shared ? JSON.stringify(notices) : '');
  }

  /** A row of this node committed: to the other nodes, and to this node's queues. */
  published(row: PendingRow, stamp: CommitStamp): void {
    this.committed({ id: row.id, realmId: row.realmId, stamp, notices: row.notices }, row.body);
  }

  private committed(batch: LogBatch, body: string): void {
    this.bus.publish(batch, body);
    if (this.started) this.receive(batch);
  }

  /** A row from anywhere: delivered in id order, each once. */
  private receive(batch: LogBatch): void {
    if (batch.id <= this.pos || this.ahead.has(batch.id)) return;
    if (batch.id !== this.pos + 1 || this.reading) {
      this.ahead.set(batch.id, batch);
      this.queues.beginPublish();
      if (!this.gapTimer && !this.reading) this.gapTimer = setTimeout(() => this.catchUp(), GAP_WAIT_MS);
      return;
    }
    this.deliver(batch);
    this.drainAhead();
  }

  private deliver(batch: LogBatch): void {
    this.pos = batch.id;
    this.queues.deliver(noticesOf(batch));
  }

  private drainAhead(): void {
    for (let next = this.ahead.get(this.pos + 1); next; next = this.ahead.get(this.pos + 1)) {
      this.ahead.delete(next.id);
      this.queues.endPublish();
      this.deliver(next);
    }
    if (this.ahead.size === 0 && this.gapTimer) {
      clearTimeout(this.gapTimer);
      this.gapTimer = null;
    }
  }

  /**
   * Reads the log after the last row delivered. On PostgreSQL ids are assigned in commit order
   * (event-log.ts), so once row n is known every row below it is readable or never will be.
   */
  catchUp(): void {
    if (this.closed) return;
    if (this.gapTimer) clearTimeout(this.gapTimer);
    this.gapTimer = null;
    if (this.reading) {
      this.readAgain = true;
      return;
    }
    this.reading = this.readLog().then(
      () => {
        this.reading = null;
        if (this.readAgain) {
          this.readAgain = false;
          this.catchUp();
        }
      },
      (err: unknown) => {
        this.reading = null;
        this.onError(err);
        // The database is away: try again shortly, rows stay in order meanwhile.
        if (!this.gapTimer && this.ahead.size) this.gapTimer = setTimeout(() => this.catchUp(), 250);
      },
    );
  }

  private async readLog(): Promise<void> {
    for (;;) {
      const rows = await readLog(this.store.db, this.pos, 500);
      const unknown = rows.filter((r) => !this.ahead.has(r.id)).map((r) => batchOfRow(r, this.store.dialect));
      await fillRecipients(this.store.db, unknown);
      const read = new Map(unknown.map((b) => [b.id, b]));
      for (const row of rows) {
        if (row.id <= this.pos) continue;
        const known = this.ahead.get(row.id);
        if (known) {
          this.ahead.delete(row.id);
          this.queues.endPublish();
        }
        this.deliver(known ?? read.get(row.id)!);
      }
      if (rows.length < 500) break;
    }
    // Rows known but not yet readable (SQLite: published ahead of a row still committing).
    for (const id of [...this.ahead.keys()]) {
      if (id > this.pos) continue;
      this.ahead.delete(id);
      this.queues.endPublish();
    }
    this.drainAhead();
    if (this.ahead.size && !this.gapTimer) this.gapTimer = setTimeout(() => this.catchUp(), GAP_WAIT_MS);
  }

  /** Stops timers; rows still ahead of a gap are read first (shutdown delivers everything committed). */
  async close(): Promise<void> {
    if (this.ahead.size) {
      this.catchUp();
      await this.reading;
    }
    this.closed = true;
    for (const t of [this.gapTimer, this.pollTimer]) if (t) clearTimeout(t);
    if (this.pollTimer) clearInterval(this.pollTimer);
    if (this.pruneTimer) clearInterval(this.pruneTimer);
    await this.reading;
  }
}
