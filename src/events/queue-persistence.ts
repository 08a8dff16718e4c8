// A node's event queues in the database: stored at registration, boundaries checkpointed, loaded
// for a poll on any node (adopt), rebuilt from the event log, removed or expired; and the queue
// file of earlier versions, read once on upgrade.
import fs from 'node:fs';
import { ClientQueue } from './queue.js';
import { NOTICES_PER_ROW } from './event-log.js';
import type { DurableQueues } from './queue-store.js';
import type { Notice } from './types.js';
import type { VariantCache } from './transform.js';

/**
 * How often changed queue boundaries are written to the database. An older boundary is still right
 * (a rebuild starts earlier and the client's last_event_id drops what it had, docs/decisions.md), so
 * this trades a longer rebuild after a crash for fewer writes: with 10,000 busy queues every
 * checkpoint rewrites 10,000 rows.
 */
const CHECKPOINT_MS = 10_000;
/**
 * How far a queue's stored last poll may lag the real one (seconds; at most a quarter of its idle
 * timeout, so another node never takes a queue in use for an idle one).
 */
const TOUCH_SECS = 60;
/** Stored queues nobody polled for this long are deleted by any node (one whose node died without collecting them). */
const ABANDONED_SECS = 7 * 24 * 3600;
/** Log rows read per query by a rebuild. */
const REBUILD_ROWS = 1000;

/** What the registry lends its persistence: its queues, and the way a notice becomes a queue's events. */
export interface QueueHost {
  now(): number;
  get(id: string): ClientQueue | undefined;
  all(): Iterable<ClientQueue>;
  index(q: ClientQueue): void;
  /** The position of the last notice this node took for delivery. */
  startedPos(): number;
  /** Adds a notice's events to a queue that accepts it, as live delivery does. */
  take(q: ClientQueue, notice: Notice, cache: VariantCache): void;
}

export class QueuePersistence {
  /** Queues whose boundary changed, for the next checkpoint. */
  private readonly dirty = new Set<ClientQueue>();
  /** Stored queues removed, whose rows go at the next checkpoint. */
  private removedIds: string[] = [];
  /** Stored queues this node collected as idle: their rows go unless another node touched them later. */
  private expired: { id: string; lastTouched: number }[] = [];
  /** Stored queues being loaded for a poll that named them here (adopt). */
  private readonly adopting = new Map<string, Promise<ClientQueue | undefined>>();
  private timer: NodeJS.Timeout | null = null;
  private checkpointing: Promise<void> | null = null;

  constructor(
    /** None: queues live in memory only (a command-line tool's app, some unit tests). */
    readonly durable: DurableQueues | undefined,
    private readonly host: QueueHost,
  ) {}

  start(): void {
    if (!this.durable) return;
    this.timer = setInterval(() => void this.checkpoint().catch(() => {}), CHECKPOINT_MS);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Stores a registered queue (its registration and boundary) before the client learns its ID. */
  async persist(q: ClientQueue): Promise<void> {
    if (!this.durable || this.host.get(q.id) !== q) return;
    await this.durable.insert(q);
    q.persisted = true;
    // Removed while it was being stored.
    if (this.host.get(q.id) !== q) this.removedIds.push(q.id);
  }

  /** This node's stored queues, back after a restart, each to be rebuilt from the log when polled; returns how many. */
  async restoreStored(): Promise<number> {
    if (!this.durable) return 0;
    const queues = await this.durable.loadNode(this.host.now());
    for (const q of queues) this.host.index(q);
    return queues.length;
  }

  /** The registry removed a queue (see QueueRegistry.remove for `how`). */
  removed(q: ClientQueue, how: 'delete' | 'expire' | 'local'): void {
    this.dirty.delete(q);
    if (q.persisted && how === 'delete') this.removedIds.push(q.id);
    else if (q.persisted && how === 'expire') this.expired.push({ id: q.id, lastTouched: q.lastTouched });
  }

  /** Deletes a stored queue's row now (a client's DELETE, so no node loads it again). */
  async deleteStored(id: string): Promise<void> {
    await this.durable?.delete(id);
  }

  /**
   * A queue another node registered (or this one, before a restart) named by a poll here: loaded
   * from its stored row, to be rebuilt from the log on this poll. Every node makes the same events
   * with the same IDs from the log, so any node can serve any queue. Undefined when no such queue
   * is stored, or when it is idle past its timeout by every node's account.
   */
  adopt(id: string): Promise<ClientQueue | undefined> {
    const known = this.host.get(id);
    if (known || !this.durable) return Promise.resolve(known);
    let pending = this.adopting.get(id);
    if (!pending) {
      const now = this.host.now();
      pending = this.durable.load(id, now).then((stored) => {
        const again = this.host.get(id);
        if (again || !stored) return again;
        if (now - stored.lastTouched > stored.queue.opts.idleTimeoutSecs) {
          this.expired.push({ id, lastTouched: stored.lastTouched });
          return undefined;
        }
        this.host.index(stored.queue);
        return stored.queue;
      });
      const done = () => void this.adopting.delete(id);
      pending.then(done, done);
      this.adopting.set(id, pending);
    }
    return pending;
  }

  /**
   * Makes a spilled queue's events again from the log, from its boundary up to what this node has
   * started delivering (and past it: later notices are then skipped by live delivery).
   */
  async rebuild(q: ClientQueue): Promise<void> {
    q.beginRebuild();
    let after = Math.floor(q.basePos / NOTICES_PER_ROW) - 1;
    for (;;) {
      const batches = await this.durable!.readLog(after, REBUILD_ROWS);
      for (const b of batches) {
        after = b.id;
        const cache: VariantCache = new Map();
        for (const n of b.notices) {
          if (n.pos! <= q.lastPos) continue;
          q.lastPos = n.pos!;
          if (n.realmId !== q.opts.realmId) continue;
          if (!n.users.includes(q.opts.userId) && !(n.publicStreamId !== undefined && q.opts.allPublicStreams)) continue;
          if (!q.accepts(n) || q.holdIfEarly(n)) continue;
          this.host.take(q, n, cache);
        }
        q.lastPos = Math.max(q.lastPos, b.id * NOTICES_PER_ROW + NOTICES_PER_ROW - 1);
      }
      if (batches.length < REBUILD_ROWS && q.lastPos >= this.host.startedPos()) break;
    }
    q.spilled = false;
  }

  /** Writes changed boundaries, recent polls and removals to the database. */
  checkpoint(): Promise<void> {
    if (this.checkpointing) return this.checkpointing.then(() => this.checkpoint());
    if (!this.durable) return Promise.resolve();
    const now = this.host.now();
    for (const q of this.host.all()) {
      // The stored last poll is kept within TOUCH_SECS of the real one, so another node's idle
      // collection (expire) and the sweep of abandoned rows see the queue as used.
      if (q.persisted && (q.dirty || q.lastTouched - q.storedTouched > Math.min(TOUCH_SECS, q.opts.idleTimeoutSecs / 4))) this.dirty.add(q);
    }
    if (this.dirty.size === 0 && this.removedIds.length === 0 && this.expired.length === 0) return Promise.resolve();
    const changed = [...this.dirty].map((q) => {
      q.dirty = false;
      q.storedTouched = q.lastTouched;
      return { id: q.id, basePos: q.basePos, baseEventId: q.baseEventId, lastTouched: q.lastTouched };
    });
    this.dirty.clear();
    const removed = this.removedIds;
    this.removedIds = [];
    const expired = this.expired;
    this.expired = [];
    this.checkpointing = this.durable.update(changed, removed, expired, now - ABANDONED_SECS).finally(() => (this.checkpointing = null));
    return this.checkpointing;
  }

  /** Writes the queues to a file, as versions before the event log did at shutdown (tests of the upgrade). */
  saveFile(file: string): void {
    const data = JSON.stringify({ version: 1, queues: [...this.host.all()].map((q) => q.toJSON()) });
    fs.writeFileSync(file + '.tmp', data);
    fs.renameSync(file + '.tmp', file);
  }

  /** Reads (once, then deletes) the queue file an earlier version saved; each queue gets a fresh idle clock. */
  loadFile(file: string): number {
    if (!fs.existsSync(file)) return 0;
    const data = JSON.parse(fs.readFileSync(file, 'utf8')) as { queues: Parameters<typeof ClientQueue.fromJSON>[0][] };
    for (const j of data.queues) this.host.index(ClientQueue.fromJSON(j, this.host.now()));
    fs.unlinkSync(file);
    return data.queues.length;
  }
}
