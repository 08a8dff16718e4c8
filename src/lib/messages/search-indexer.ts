// SQLite search indexing of new messages off the sending path: committed messages get their FTS5
// rows in batches moments later; a search first indexes whatever is still waiting.
import { sql } from 'kysely';
import type { Store } from '../../store/store.js';
import type { NarrowTerm } from '../../models/narrow.js';

/**
 * How long a new message waits for others to be indexed with it. FTS5 writes an index segment at
 * every savepoint release, so indexing inside each send cost about a sixth of a send's CPU in
 * process (docs/performance.md); a batch pays for one segment.
 */
const BATCH_DELAY_MS = 50;
/** Message IDs covered by one indexing write at most (a long backlog after a crash takes several). */
const IDS_PER_WRITE = 5000;
/** After a failed batch (the database refused the write), the next try waits this long, not BATCH_DELAY_MS. */
const RETRY_DELAY_MS = 5000;

/**
 * On SQLite, search rows of messages with IDs up to `indexedThrough` exist (or the message was
 * deleted); newer ones are indexed by the next batch. The original server also indexes
 * asynchronously, through a queue of pending updates; here a search never sees that lag, because
 * it calls catchUp first. Edits and deletions update rows that exist and leave the rest to the
 * batch, which reads the stored text when it runs. On PostgreSQL there is nothing to maintain
 * (an expression index), and every method returns at once.
 */
export class SearchIndexer {
  private indexedThrough = 0;
  /** The newest message ID known to be committed (sent through this process, or found at start). */
  private newest = 0;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = false;
  private lastFailed = false;

  constructor(
    private readonly store: Store,
    private readonly log: (msg: string) => void = (m) => process.stderr.write(m + '\n'),
  ) {}

  private get active(): boolean {
    return this.store.dialect === 'sqlite' && !this.stopped;
  }

  /** At start: finds where indexing stopped and indexes what a crash left behind. */
  async start(): Promise<void> {
    if (!this.active) return;
    const { rows } = await sql<{ indexed: number | null; newest: number | null }>`
      SELECT (SELECT max(rowid) FROM message_search) AS indexed, (SELECT max(id) FROM messages) AS newest`.execute(this.store.db);
    // Search rows are only created by batches, in ID order, each complete for its range (edits
    // replace rows, never add them): every message up to the newest row has one or is deleted.
    this.indexedThrough = Number(rows[0]?.indexed ?? 0);
    this.newest = Number(rows[0]?.newest ?? 0);
    await this.catchUp();
  }

  /** A message committed: it is indexed with the next batch. */
  noteCommitted(messageId: number): void {
    if (!this.active) return;
    if (messageId > this.newest) this.newest = messageId;
    this.schedule();
  }

  /** Arms the batch timer when messages wait and no batch is due or running. */
  private schedule(): void {
    if (this.timer || this.running || !this.active || this.indexedThrough >= this.newest) return;
    this.timer = setTimeout(
      () => {
        this.timer = null;
        this.catchUp().catch((err: unknown) => this.log(`search indexing failed: ${err instanceof Error ? err.message : String(err)}`));
      },
      this.lastFailed ? RETRY_DELAY_MS : BATCH_DELAY_MS,
    );
    this.timer.unref();
  }

  /** Resolves once every message committed before the call is searchable. */
  async catchUp(): Promise<void> {
    const target = this.newest;
    while (this.active && this.indexedThrough < target) {
      // Messages committed while a batch runs wait for the next timer, not for this batch to chase them.
      this.running ??= this.indexNext().finally(() => {
        this.running = null;
        this.schedule();
      });
      await this.running;
    }
  }

  /** Stops scheduling batches (shutdown); what is left is indexed at the next start. */
  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  /** Indexes the next range of message IDs in one write, skipping messages that already have a row. */
  private async indexNext(): Promise<void> {
    const from = this.indexedThrough;
    const to = Math.min(this.newest, from + IDS_PER_WRITE);
    try {
      await this.store.write(async (tx) => {
        await sql`
          INSERT INTO message_search (rowid, topic, content)
          SELECT m.id, m.topic, m.content FROM messages m
          WHERE m.id > ${from} AND m.id <= ${to} AND NOT EXISTS (SELECT 1 FROM message_search s WHERE s.rowid = m.id)`.execute(tx);
      });
    } catch (err) {
      this.lastFailed = true;
      throw err;
    }
    this.lastFailed = false;
    if (to > this.indexedThrough) this.indexedThrough = to;
  }
}

/** Before a narrow is read: with a search term, waits until every committed message is searchable. */
export async function searchReady(indexer: SearchIndexer, narrow: readonly NarrowTerm[]): Promise<void> {
  if (narrow.some((t) => t.operator === 'search')) await indexer.catchUp();
}
