// This node's event queues: creation, delivery of notices in order and in slices (so a big fan-out
// never stalls the event loop), long-poll waiting with heartbeats, idle collection; the database side
// of queues (stored, loaded on any node, rebuilt from the log) is queue-persistence.ts.
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { ClientQueue, type PollListener, type PollOwner, type QueueOptions, type QueuedEvent } from './queue.js';
import { FifoSet } from './fifo-set.js';
import { eventsForQueue, ownMessageEvent, type VariantCache } from './transform.js';
import { ReadPacer, type PausableReads } from './read-pacer.js';
import { QueuePersistence } from './queue-persistence.js';
import type { Notice } from './types.js';
import type { ReadSnapshot } from '../store/store.js';
import type { DurableQueues } from './queue-store.js';

export interface RegistryOptions {
  nodeId: string;
  heartbeatSecs: number;
  now: () => number;
  /** How often idle queues are looked for, in milliseconds. */
  gcIntervalMs?: number;
  /** The answer gap for busy queues (MIN_ANSWER_GAP_MS unless a test needs another). */
  minAnswerGapMs?: number;
  /** The gap while the event loop is busy: BUSY_ANSWER_GAP_MS, or minAnswerGapMs when a test sets that. */
  busyAnswerGapMs?: number;
  /** The share of time the event loop was busy lately, 0 to 1 (a test may stand in for the loop). */
  loopUtilization?: () => number;
  /** Where queues are stored and rebuilt from (queue-store.ts); none keeps queues in memory only. */
  durable?: DurableQueues;
  /** Events a queue keeps in memory while nobody polls it; past that they are dropped and rebuilt from the log on the next poll. */
  maxQueueEvents?: number;
}

/** See RegistryOptions.maxQueueEvents. */
export const MAX_QUEUE_EVENTS = 2000;
/**
 * Deliveries into queues done before yielding the event loop, in milliseconds, so a 10,000-queue
 * fan-out never holds the loop (a time rather than a count, so the slice fits the machine).
 */
const SLICE_MS = 4;
/** How often the clock is read inside a slice. */
const CLOCK_EVERY = 32;
/**
 * Long-polls answered per turn of the event loop. A count, not a time: an answer's cost (serializing
 * and writing the response) runs in the microtasks it queues, after the slice, where no clock here
 * sees it. It also bounds the next turn: each answered client sends its next poll, and the loop
 * reads every request that has arrived in one go, so a large slice comes back as a flood of polls.
 */
const ANSWERS_PER_TURN = 48;
/**
 * A queue answered less than this long ago waits out the rest before its next answer. A client
 * that is receiving a steady stream then gets it in batches (fewer round trips for it and for us);
 * a queue that was quiet is answered at once. So a queue gets at most 40 answers a second, each
 * at most 25 ms late. In the send benchmark (100 polled queues) 25 ms took 300 → 510 msg/s and
 * 17 → 6 long-polls per message against 10 ms; 50 ms gained nothing more (docs/performance.md).
 */
export const MIN_ANSWER_GAP_MS = 25;
/**
 * The gap while the event loop is busy (at least BUSY_LOOP_SHARE of it over the last
 * BUSY_WINDOW_MS): more events per answer and fewer answers when answering is what holds the
 * server back. With 100 polled queues at full load: 3,550 long-polls/s with 25 ms, 1,900 with 50,
 * 980 with 100, and less server CPU per message at each step in every paired run (the message rate
 * moved within this machine's noise against the 25 ms gap alone). Under moderate load
 * the short gap stays: its answers come in smaller bursts, which sends arriving meanwhile wait
 * behind (at a paced 500 msg/s, send p99 of 11.5–12.2 ms against 16–23 ms with 50 ms throughout;
 * docs/performance.md, "Long-polls and fan-out").
 */
export const BUSY_ANSWER_GAP_MS = 100;
// Sustained load, not a burst: one fan-out to 1,000 queues every 100 ms keeps the loop about half busy.
const BUSY_LOOP_SHARE = 0.8;
const BUSY_WINDOW_MS = 250;
/**
 * Answers whose client has not polled again yet, at most. Each comes back as a request, and the
 * loop reads every request that has arrived in one turn: 10,000 answers out at once return as a
 * flood that holds the loop for hundreds of milliseconds. With a bound, answers go out as polls
 * come back, at the same overall pace. A client that does not come back stops counting after
 * IN_FLIGHT_EXPIRY_MS. Answers on connections whose next request the registry holds back
 * (HTTP/1.1, see ReadPacer) do not count: their polls come back only as they are released.
 */
export const MAX_IN_FLIGHT = 128;
const IN_FLIGHT_EXPIRY_MS = 1000;

/** Which entry of a queue's fifoSlots each of the registry's FifoSets uses. */
const WOKEN_SLOT = 0;
const IN_FLIGHT_SLOT = 1;
const WAITING_SLOT = 2;

export class QueueRegistry implements PollOwner {
  private readonly queues = new Map<string, ClientQueue>();
  private readonly byUser = new Map<number, Set<ClientQueue>>();
  private readonly publicListeners = new Map<number, Set<ClientQueue>>();
  private readonly backlog: Notice[] = [];
  private pumping = false;
  /** Numbers the notices delivered, for ClientQueue.reachedBy. */
  private noticeMarks = 0;
  /** The delivery deliver() scheduled for the next turn, until it starts. */
  private pumpSoon: NodeJS.Immediate | null = null;
  /** Non-blocking polls that arrived while the pump was between slices, resumed when it is done. */
  private afterPump: (() => void)[] = [];
  /** The notice pump is delivering (its remaining queues), while it waits between slices. */
  private delivering: Generator<number> | null = null;
  /** Queues with events for their waiting poll, in the order they got them. */
  private readonly woken = new FifoSet<ClientQueue>(WOKEN_SLOT);
  private wakeScheduled = false;
  /** Woken queues waiting out their answer gap, and the one timer that brings them back. */
  private readonly deferred = new Set<ClientQueue>();
  private deferTimer: NodeJS.Timeout | null = null;
  /** Queues answered whose client has not polled since, oldest first (see MAX_IN_FLIGHT). */
  private readonly inFlight = new FifoSet<ClientQueue>(IN_FLIGHT_SLOT);
  private inFlightTimer: NodeJS.Timeout | null = null;
  private gcTimer: NodeJS.Timeout | null = null;
  /**
   * Queues with a waiting poll, in deadline order: every poll waits the same heartbeatSecs, so
   * insertion order is deadline order and one timer (for the first) replaces a timer per poll.
   */
  private readonly waiting = new FifoSet<ClientQueue>(WAITING_SLOT);
  private heartbeatTimer: NodeJS.Timeout | null = null;
  /** The position of the last notice taken for delivery (a queue created now starts after it). */
  startedPos = -1;
  /** Publications of this node not yet handed over (EventFeed): a dont_block poll waits for them. */
  private outstanding = 0;
  /** The queues in the database (queue-persistence.ts). */
  private readonly persistence: QueuePersistence;

  private readonly quietGapMs: number;
  private readonly busyGapMs: number;
  private readonly loopUtilization: () => number;
  /** Connections whose poll was answered, held back until the answering is done. */
  private readonly reads = new ReadPacer(() => this.answering);

  constructor(private readonly opts: RegistryOptions) {
    this.quietGapMs = opts.minAnswerGapMs ?? MIN_ANSWER_GAP_MS;
    this.busyGapMs = opts.busyAnswerGapMs ?? opts.minAnswerGapMs ?? BUSY_ANSWER_GAP_MS;
    this.loopUtilization = opts.loopUtilization ?? recentLoopUtilization(BUSY_WINDOW_MS);
    this.persistence = new QueuePersistence(opts.durable, {
      now: () => opts.now(),
      get: (id) => this.queues.get(id),
      all: () => this.queues.values(),
      index: (q) => this.index(q),
      startedPos: () => this.startedPos,
      take: (q, notice, cache) => this.store(q, notice, cache),
    });
  }

  /** Holds back the next request of a connection whose long-poll was just answered (see ReadPacer). */
  holdReads(conn: PausableReads): void {
    this.reads.hold(conn);
  }

  /** Whether answers are still going out, so holdReads would hold anything (the HTTP layer then skips it). */
  get answering(): boolean {
    return this.pumping || this.wakeScheduled;
  }

  get size(): number {
    return this.queues.size;
  }

  /** Long-polls held open, waiting for events (/metrics). */
  get heldPolls(): number {
    return this.waiting.size;
  }

  /** Events handed to long-poll answers so far (/metrics reads it; a plain number on the answer path). */
  eventsDelivered = 0;

  create(options: Omit<QueueOptions, 'id'>): ClientQueue {
    const id = `${this.opts.nodeId}-${randomBytes(9).toString('base64url')}`;
    const q = new ClientQueue({ ...options, id }, this.opts.now(), false, this.startedPos);
    this.index(q);
    return q;
  }

  /** Stores a registered queue (its registration and boundary) before the client learns its ID. */
  persist(q: ClientQueue): Promise<void> {
    return this.persistence.persist(q);
  }

  /** Brings back this node's stored queues (durable only); returns how many. */
  restoreStored(): Promise<number> {
    return this.persistence.restoreStored();
  }

  /** Counts a publication of this node still on its way (see listen's dont_block). */
  beginPublish(): void {
    this.outstanding++;
  }

  endPublish(): void {
    if (--this.outstanding === 0 && !this.pumping && !this.pumpSoon) this.resumeAfterPump();
  }

  private index(q: ClientQueue): void {
    this.queues.set(q.id, q);
    let set = this.byUser.get(q.opts.userId);
    if (!set) this.byUser.set(q.opts.userId, (set = new Set()));
    set.add(q);
    if (q.opts.allPublicStreams) {
      let pub = this.publicListeners.get(q.opts.realmId);
      if (!pub) this.publicListeners.set(q.opts.realmId, (pub = new Set()));
      pub.add(q);
    }
  }

  get(id: string): ClientQueue | undefined {
    return this.queues.get(id);
  }

  /**
   * Removes a queue. how: 'delete' (the client or the server ended it: its stored row goes too),
   * 'expire' (idle here: the row goes unless another node served it later), 'local' (another node
   * deleted it and its row).
   */
  remove(id: string, how: 'delete' | 'expire' | 'local' = 'delete'): void {
    const q = this.queues.get(id);
    if (!q) return;
    this.queues.delete(id);
    this.byUser.get(q.opts.userId)?.delete(q);
    if (this.byUser.get(q.opts.userId)?.size === 0) this.byUser.delete(q.opts.userId);
    this.publicListeners.get(q.opts.realmId)?.delete(q);
    this.woken.delete(q);
    this.deferred.delete(q);
    this.inFlight.delete(q);
    this.persistence.removed(q, how);
    this.unpark(q)?.deliver([]);
  }

  /** A client ended its queue: gone here and from the database now (other nodes drop their copies on the bus's word). */
  async delete(id: string): Promise<void> {
    this.remove(id, 'local');
    await this.persistence.deleteStored(id);
  }

  /**
   * A queue another node registered (or this one, before a restart) named by a poll here: loaded
   * from its stored row, to be rebuilt from the log on this poll. Every node makes the same events
   * with the same IDs from the log, so any node can serve any queue. Undefined when no such queue is stored.
   */
  adopt(id: string): Promise<ClientQueue | undefined> {
    return this.persistence.adopt(id);
  }

  /**
   * Users with a queue here that receives message events (the original's "accepts messages"): they
   * see new messages in a client, so missed-message emails skip them. Read on a timer, not per event.
   */
  usersWithMessageQueues(): Set<number> {
    const out = new Set<number>();
    for (const [userId, set] of this.byUser) {
      for (const q of set) {
        if (q.opts.eventTypes === null || q.opts.eventTypes.includes('message')) {
          out.add(userId);
          break;
        }
      }
    }
    return out;
  }

  /** Whether a user has such a queue on this node. */
  hasMessageQueue(userId: number): boolean {
    for (const q of this.byUser.get(userId) ?? []) if (q.opts.eventTypes === null || q.opts.eventTypes.includes('message')) return true;
    return false;
  }

  /** Removes every queue of a user (deactivation, API key change). */
  removeUserQueues(userId: number): void {
    for (const q of [...(this.byUser.get(userId) ?? [])]) this.remove(q.id);
  }

  /** Finishes a queue's registration with the snapshot its initial state was read from. */
  completeRegistration(q: ClientQueue, snapshot: ReadSnapshot): void {
    const missed = q.setSnapshot(snapshot);
    for (const n of missed) this.store(q, n, new Map());
    this.wake();
  }

  /**
   * Accepts notices (after their commit) and delivers them in order. Delivery starts on the next
   * turn of the event loop, not here: the publisher (a send) answers its own client first, and
   * notices published together in this turn (a group commit's) go out in one pass.
   */
  deliver(notices: Notice[]): void {
    this.backlog.push(...notices);
    if (!this.pumping && !this.pumpSoon) this.pumpSoon = setImmediate(() => this.pumpNow());
  }

  /** True while published notices wait for delivery or are being delivered. */
  get deliveryPending(): boolean {
    return this.pumping || this.pumpSoon !== null || this.backlog.length > 0;
  }

  /** Starts a scheduled delivery at once (a poll must see every notice published before it). */
  private pumpNow(): void {
    if (!this.pumpSoon) return;
    clearImmediate(this.pumpSoon);
    this.pumpSoon = null;
    void this.pump();
  }

  private async pump(): Promise<void> {
    this.pumping = true;
    let sliceEnd = performance.now() + SLICE_MS;
    try {
      while (this.backlog.length) {
        const notice = this.backlog.shift()!;
        if (notice.pos !== undefined) this.startedPos = notice.pos;
        this.delivering = this.recipientsOf(notice);
        // The clock is read every CLOCK_EVERY queues of a notice, and after each notice (a burst
        // of small notices is sliced too).
        for (const _reached of this.delivering) if (performance.now() >= sliceEnd) sliceEnd = await this.yieldSlice();
        if (performance.now() >= sliceEnd) sliceEnd = await this.yieldSlice();
      }
    } finally {
      this.delivering = null;
      this.pumping = false;
      this.wake();
      this.reads.kick();
      if (this.outstanding === 0) this.resumeAfterPump();
    }
  }

  private resumeAfterPump(): void {
    const resume = this.afterPump;
    this.afterPump = [];
    for (const r of resume) r();
  }

  /** Ends a slice: answers what the slice woke, lets the loop run, and returns the next slice's end. */
  private async yieldSlice(): Promise<number> {
    this.wake();
    await new Promise((r) => setImmediate(r));
    return performance.now() + SLICE_MS;
  }

  /**
   * Delivers one notice, yielding after every CLOCK_EVERY queues it reached (so pump can look at
   * the clock and slice a big fan-out): the notice's users' queues, then the realm's
   * all-public-streams queues for a public channel.
   */
  private *recipientsOf(notice: Notice): Generator<number> {
    const cache: VariantCache = new Map();
    // Queues reached through their user carry this notice's mark, so the all-public-streams pass
    // below skips them (a field per queue rather than a set of 10,000 queues per message).
    const mark = ++this.noticeMarks;
    let reached = 0;
    for (const userId of notice.users) {
      const set = this.byUser.get(userId);
      if (!set) continue;
      for (const q of set) {
        if (q.opts.realmId !== notice.realmId) continue;
        q.reachedBy = mark;
        this.pushTo(q, notice, cache);
        if (++reached % CLOCK_EVERY === 0) yield reached;
      }
    }
    if (notice.publicStreamId !== undefined) {
      for (const q of this.publicListeners.get(notice.realmId) ?? []) {
        if (q.reachedBy !== mark) this.pushTo(q, notice, cache);
      }
    }
  }

  /** Delivers the whole backlog now, without yielding (shutdown: nothing published may be lost). */
  private drainBacklog(): void {
    if (this.pumpSoon) clearImmediate(this.pumpSoon);
    this.pumpSoon = null;
    // A pump suspended between slices finds its notice done and the backlog empty when it resumes.
    if (this.delivering) for (const _reached of this.delivering);
    while (this.backlog.length) {
      const notice = this.backlog.shift()!;
      if (notice.pos !== undefined) this.startedPos = notice.pos;
      for (const _reached of this.recipientsOf(notice));
    }
  }

  private pushTo(q: ClientQueue, notice: Notice, cache: VariantCache): void {
    // Its events are in the log; the next poll rebuilds them.
    if (q.spilled) return;
    const pos = notice.pos;
    if (pos !== undefined) {
      // Taken already (by a rebuild that read the log ahead of this delivery).
      if (pos <= q.lastPos) return;
      q.lastPos = pos;
    }
    if (!q.accepts(notice)) return;
    if (q.holdIfEarly(notice)) return;
    this.store(q, notice, cache);
    // An abandoned queue does not grow without bound: past the window its events live in the log only.
    if (q.events.length > (this.opts.maxQueueEvents ?? MAX_QUEUE_EVENTS) && !q.waiter && this.opts.durable && q.persisted) {
      q.spill();
      this.woken.delete(q);
      this.deferred.delete(q);
    }
  }

  /** Adds a notice's events for this queue (a notice it accepts). */
  private store(q: ClientQueue, notice: Notice, cache: VariantCache): void {
    const pos = notice.pos ?? -1;
    // A message event is made for this queue alone, so it is kept without the copy push makes.
    const own = ownMessageEvent(notice, q, cache);
    if (own) q.pushOwn(own, pos);
    else for (const ev of eventsForQueue(notice, q, cache)) q.push(ev, pos);
    // Its client has these already (from another node's copy): dropped once the whole notice is in,
    // so the stored boundary never splits a notice.
    if (q.events.length && q.events[0].id <= q.ackedId) q.acknowledge(q.ackedId);
    if (q.waiter && q.events.length) this.woken.add(q);
  }

  /**
   * Answers waiting long-polls whose queues received events, a slice at a time: each answer
   * serializes and writes a response, so thousands at once would stall the event loop.
   */
  private wake(): void {
    if (this.wakeScheduled || this.woken.size === 0) return;
    this.wakeScheduled = true;
    setImmediate(() => this.answerWoken());
  }

  private answerWoken(): void {
    this.wakeScheduled = false;
    const now = performance.now();
    this.expireInFlight(now);
    const listeners: PollListener[] = [];
    const answers: QueuedEvent[][] = [];
    for (let q = this.woken.first(); q !== undefined; q = this.woken.first()) {
      if (this.inFlight.size >= MAX_IN_FLIGHT) {
        // Polls coming back wake us again; the timer covers clients that never do.
        this.armInFlightTimer();
        break;
      }
      this.woken.delete(q);
      if (!q.waiter || q.events.length === 0) continue;
      if (this.deferIfRecent(q, now)) continue;
      listeners.push(this.takeForAnswer(q));
      answers.push(q.events.slice());
      if (listeners.length >= ANSWERS_PER_TURN) {
        this.wake();
        break;
      }
    }
    // Written once this turn is settled: an answer's connection is held back (holdReads) only
    // while more answers follow, which `answering` now tells.
    for (let i = 0; i < listeners.length; i++) {
      this.eventsDelivered += answers[i].length;
      listeners[i].deliver(answers[i]);
    }
    // Held connections come back once nothing is left to answer, or when held too long (ReadPacer).
    this.reads.kick();
  }

  /** Takes a queue's waiting poll to be answered with everything pending. */
  private takeForAnswer(q: ClientQueue): PollListener {
    const w = this.unpark(q)!;
    q.lastTouched = this.opts.now();
    q.lastAnsweredAt = performance.now();
    this.inFlight.delete(q);
    if (!w.pacedReads) this.inFlight.add(q);
    return w;
  }

  /** Forgets answers older than IN_FLIGHT_EXPIRY_MS (oldest first, so it stops at the first recent one). */
  private expireInFlight(now: number): void {
    for (let q = this.inFlight.first(); q !== undefined && now - q.lastAnsweredAt >= IN_FLIGHT_EXPIRY_MS; q = this.inFlight.first()) this.inFlight.delete(q);
  }

  private armInFlightTimer(): void {
    if (this.inFlightTimer) return;
    const oldest = this.inFlight.first();
    const wait = oldest ? Math.max(1, oldest.lastAnsweredAt + IN_FLIGHT_EXPIRY_MS - performance.now()) : 1;
    this.inFlightTimer = setTimeout(() => {
      this.inFlightTimer = null;
      this.wake();
    }, wait);
    this.inFlightTimer.unref();
  }

  /** How long after its last answer a queue waits before the next: longer while the loop is busy. */
  private gapMs(): number {
    return this.busyGapMs !== this.quietGapMs && this.loopUtilization() >= BUSY_LOOP_SHARE ? this.busyGapMs : this.quietGapMs;
  }

  /** Holds a queue answered less than the gap ago until the gap has passed. */
  private deferIfRecent(q: ClientQueue, now: number): boolean {
    const due = q.lastAnsweredAt + this.gapMs();
    if (due <= now) return false;
    this.deferred.add(q);
    if (!this.deferTimer) {
      this.deferTimer = setTimeout(() => this.releaseDeferred(), due - now);
      this.deferTimer.unref();
    }
    return true;
  }

  /** Moves deferred queues whose gap has passed back to the woken set; re-arms for the rest. */
  private releaseDeferred(): void {
    this.deferTimer = null;
    const now = performance.now();
    let next = Infinity;
    const gap = this.gapMs();
    for (const q of this.deferred) {
      const due = q.lastAnsweredAt + gap;
      if (due <= now + 1) {
        this.deferred.delete(q);
        this.woken.add(q);
      } else next = Math.min(next, due);
    }
    if (next !== Infinity) {
      this.deferTimer = setTimeout(() => this.releaseDeferred(), next - now);
      this.deferTimer.unref();
    }
    this.wake();
  }

  /**
   * A long-poll: acknowledges lastEventId, then answers the listener with pending events at once,
   * or when the next ones arrive (a heartbeat after heartbeatSecs of silence), or with [] when
   * dontBlock. The answer may come before this returns.
   */
  listen(q: ClientQueue, lastEventId: number | undefined, dontBlock: boolean, listener: PollListener): void {
    if (q.spilled) {
      this.listenAfterRebuild(q, lastEventId, dontBlock, listener);
      return;
    }
    // Notices published before this poll arrived are in its queue before it looks.
    this.pumpNow();
    if (dontBlock && (this.pumping || this.outstanding > 0)) {
      this.listenAfterPump(q, lastEventId, dontBlock, listener);
      return;
    }
    q.lastTouched = this.opts.now();
    if (lastEventId !== undefined) q.acknowledge(lastEventId);
    // The client is back: its answer no longer counts against MAX_IN_FLIGHT.
    if (this.inFlight.delete(q) && this.woken.size) this.wake();
    // Pending events go out at once, unless this queue was answered moments ago: then the poll
    // waits out the gap below, so a busy stream arrives in batches.
    const now = performance.now();
    if (dontBlock || (q.events.length && now >= q.lastAnsweredAt + this.gapMs())) {
      if (q.events.length) {
        q.lastAnsweredAt = now;
        if (!listener.pacedReads) this.inFlight.add(q);
      }
      this.eventsDelivered += q.events.length;
      listener.deliver(q.events.slice());
      return;
    }
    // A newer poll replaces an older one on the same queue; the older returns empty.
    this.unpark(q)?.deliver([]);
    // Nobody is left to answer.
    if (listener.aborted) return;
    q.waiter = listener;
    q.waitDeadline = now + this.opts.heartbeatSecs * 1000;
    this.waiting.add(q);
    this.armHeartbeat();
    if (q.events.length) this.deferIfRecent(q, now);
    listener.onClose(q, this);
  }

  /**
   * A delivery is between slices: a poll that answers with what is there waits for it to end, or it
   * could miss notices published before it (a client reading right after its own change). Its own
   * method: a closure in listen would make every call allocate the variables it captures.
   */
  private listenAfterPump(q: ClientQueue, lastEventId: number | undefined, dontBlock: boolean, listener: PollListener): void {
    this.afterPump.push(() => this.listen(q, lastEventId, dontBlock, listener));
  }

  /** Rebuilds a spilled queue from the log, then takes the poll (a queue removed meanwhile answers empty). */
  private listenAfterRebuild(q: ClientQueue, lastEventId: number | undefined, dontBlock: boolean, listener: PollListener): void {
    q.lastTouched = this.opts.now();
    const rebuilding = (q.rebuilding ??= this.persistence.rebuild(q).finally(() => (q.rebuilding = null)));
    rebuilding.then(
      () => (this.queues.get(q.id) === q ? this.listen(q, lastEventId, dontBlock, listener) : listener.deliver([])),
      () => {
        q.spilled = true;
        listener.deliver([]);
      },
    );
  }

  /** A held poll's connection closed: its client left, unless the poll was answered (or replaced) already. */
  pollClosed(q: ClientQueue, listener: PollListener): void {
    if (q.waiter !== listener) return;
    this.unpark(q);
    q.lastTouched = this.opts.now();
  }

  /** Takes the queue's waiting poll off the heartbeat list and returns it (to be answered). */
  private unpark(q: ClientQueue): PollListener | null {
    const w = q.waiter;
    if (!w) return null;
    q.waiter = null;
    this.waiting.delete(q);
    if (this.waiting.size === 0 && this.heartbeatTimer) {
      clearTimeout(this.heartbeatTimer);
      this.heartbeatTimer = null;
    }
    return w;
  }

  /** Sets the one heartbeat timer for the earliest deadline (when the first waiter left, it fires early and re-arms). */
  private armHeartbeat(): void {
    if (this.heartbeatTimer) return;
    const first = this.waiting.first();
    if (!first?.waiter) return;
    this.heartbeatTimer = setTimeout(() => this.heartbeats(), Math.max(0, first.waitDeadline - performance.now()) + 1);
    // A held long-poll's socket keeps the process alive; the timer alone should not.
    this.heartbeatTimer.unref();
  }

  /** Answers every poll whose heartbeat is due with a heartbeat event. */
  private heartbeats(): void {
    this.heartbeatTimer = null;
    const now = performance.now();
    for (let q = this.waiting.first(); q !== undefined && q.waitDeadline <= now; q = this.waiting.first()) {
      if (q.events.length === 0) q.pushHeartbeat();
      // Answered like any woken queue, in paced turns: queues registered together (after a restart,
      // thousands) fall due together, and answering them at once would flood the loop as a fan-out
      // does. Off the deadline list meanwhile, so the next timer looks at the next deadline.
      this.waiting.delete(q);
      this.woken.add(q);
    }
    this.armHeartbeat();
    this.wake();
  }

  /** Removes queues that nobody has polled for longer than their idle timeout. */
  collectIdle(): number {
    const now = this.opts.now();
    let removed = 0;
    for (const q of [...this.queues.values()]) {
      if (!q.waiter && now - q.lastTouched > q.opts.idleTimeoutSecs) {
        this.remove(q.id, 'expire');
        removed++;
      }
    }
    return removed;
  }

  start(): void {
    this.gcTimer = setInterval(() => this.collectIdle(), this.opts.gcIntervalMs ?? 60_000);
    this.gcTimer.unref();
    this.persistence.start();
  }

  /** Writes changed boundaries, recent polls and removals to the database. */
  checkpoint(): Promise<void> {
    return this.persistence.checkpoint();
  }

  /** Stops timers and answers every waiting long-poll with what it has, so shutdown is prompt. */
  stop(): void {
    this.drainBacklog();
    if (this.gcTimer) clearInterval(this.gcTimer);
    this.gcTimer = null;
    this.persistence.stop();
    if (this.deferTimer) clearTimeout(this.deferTimer);
    this.deferTimer = null;
    this.deferred.clear();
    if (this.inFlightTimer) clearTimeout(this.inFlightTimer);
    this.inFlightTimer = null;
    this.inFlight.clear();
    this.reads.releaseAll();
    for (const q of this.queues.values()) this.unpark(q)?.deliver(q.events.slice());
  }

  /** Writes the queues to a file as versions before the event log did (tests of the upgrade path). */
  save(file: string): void {
    this.drainBacklog();
    this.persistence.saveFile(file);
  }

  /** Reads the queue file an earlier version saved at shutdown (once, on upgrade); returns how many queues. */
  load(file: string): number {
    return this.persistence.loadFile(file);
  }
}

/**
 * The event loop's utilization over the last window (performance.eventLoopUtilization), measured
 * again at most once a window: cheap enough to ask on every poll.
 */
function recentLoopUtilization(windowMs: number): () => number {
  let last = performance.eventLoopUtilization();
  let lastAt = performance.now();
  let value = 0;
  return () => {
    const now = performance.now();
    if (now - lastAt >= windowMs) {
      const current = performance.eventLoopUtilization();
      value = performance.eventLoopUtilization(current, last).utilization;
      last = current;
      lastAt = now;
    }
    return value;
  };
}
