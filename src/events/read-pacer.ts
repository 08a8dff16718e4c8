// Holds back the next request of connections whose long-poll was just answered, so a fan-out's answers all go out before their clients' next polls are read.
import { performance } from 'node:perf_hooks';
import { FifoSet, type FifoMember } from './fifo-set.js';

/**
 * A connection whose reading can stop and start again (a lean HTTP/1.1 connection, or a net.Socket
 * under node:http, wrapped). Its fifoSlots has one entry, for the pacer's list of held connections.
 */
export interface PausableReads extends FifoMember {
  pause(): unknown;
  resume(): unknown;
  readonly destroyed: boolean;
}

/**
 * Connections released per turn of the loop once answering is done. Each comes back as a request
 * (its client's next poll, about 40 µs to read and serve), all read in the next turn.
 */
export const RELEASE_PER_TURN = 64;
/** However long a fan-out runs, no connection waits longer than this for its next request to be read. */
export const MAX_HOLD_MS = 500;

/**
 * Why: every answered long-poll comes straight back as the client's next poll. Read at once, those
 * requests cost as much as the answers themselves and interleave with them, so the last listener
 * of a 10,000-queue fan-out waited for 9,999 answers and as many polls. Held back, the answers go
 * out first; the polls follow, RELEASE_PER_TURN per turn, when nothing is waiting to be answered
 * (`busy` says whether something is), and they find their queues as they left them or with newer
 * events, which they take at once.
 */
export class ReadPacer {
  /** Held connections, oldest first, each with the time it was held. */
  private readonly held = new FifoSet<PausableReads>(0);
  private scheduled = false;

  constructor(
    private readonly busy: () => boolean,
    private readonly maxHoldMs = MAX_HOLD_MS,
  ) {}

  get size(): number {
    return this.held.size;
  }

  /**
   * Stops reading the connection until a later turn releases it, if answers are still going out:
   * otherwise its next request could delay nothing, and holding and releasing have a cost of their
   * own.
   */
  hold(conn: PausableReads): void {
    if (conn.destroyed || !this.busy()) return;
    conn.pause();
    this.held.delete(conn);
    this.held.add(conn, performance.now());
    this.schedule();
  }

  /**
   * Releases held connections: up to RELEASE_PER_TURN when nothing waits to be answered (and comes
   * back next turn for more), else only those held longer than MAX_HOLD_MS (the answering side calls
   * again at the end of each of its turns).
   */
  kick(): void {
    if (this.held.size === 0) return;
    const busy = this.busy();
    const now = performance.now();
    let released = 0;
    for (let conn = this.held.first(); conn !== undefined; conn = this.held.first()) {
      if (released >= RELEASE_PER_TURN || (busy && now - this.held.firstAt() < this.maxHoldMs)) break;
      this.held.delete(conn);
      if (conn.destroyed) continue;
      conn.resume();
      released++;
    }
    if (this.held.size && !busy) this.schedule();
  }

  /** Releases every held connection now (shutdown). */
  releaseAll(): void {
    for (let conn = this.held.shift(); conn !== undefined; conn = this.held.shift()) if (!conn.destroyed) conn.resume();
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.kick();
    });
  }
}
