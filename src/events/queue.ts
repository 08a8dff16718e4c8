// One client's event queue: what it asked for, the events not yet acknowledged, and its waiting long-poll.
import type { ReadSnapshot } from '../store/store.js';
import type { Notice } from './types.js';
import { narrowAcceptsMessage, type NarrowTerm } from './narrow-filter.js';
import type { FifoMember } from './fifo-set.js';

export interface QueueOptions {
  id: string;
  userId: number;
  realmId: number;
  /** Null means every type. */
  eventTypes: string[] | null;
  narrow: NarrowTerm[];
  allPublicStreams: boolean;
  applyMarkdown: boolean;
  clientGravatar: boolean;
  capabilities: Record<string, boolean>;
  idleTimeoutSecs: number;
  clientName: string;
}

export interface QueuedEvent {
  id: number;
  type: string;
  [key: string]: unknown;
}

/**
 * A waiting long-poll, as the HTTP layer keeps it: the registry holds it on its queue until events,
 * a heartbeat or the client's departure. An object rather than a promise and its closures: thousands
 * are held at once, and every byte a held poll keeps is copied by the next garbage collections.
 */
export interface PollListener {
  /** The client has gone away. */
  readonly aborted: boolean;
  /** Its connection's next request is held back after the answer (ReadPacer): the answer cannot come back as a flood. */
  readonly pacedReads: boolean;
  /**
   * Calls owner.pollClosed(q, this) once, when the client goes away or after the answer was sent;
   * the owner (the registry) tells the two apart by whether the poll is still waiting. An owner
   * object rather than a callback: a callback would be a closure kept by every held poll.
   */
  onClose(q: ClientQueue, owner: PollOwner): void;
  /** Answers the poll (once); must not throw. */
  deliver(events: QueuedEvent[]): void;
}

/** What a held poll tells of its client's departure (see PollListener.onClose). */
export interface PollOwner {
  pollClosed(q: ClientQueue, listener: PollListener): void;
}

export class ClientQueue implements FifoMember {
  /** Kept when emptied (acknowledge): a queue's array is not reallocated for each message. */
  readonly events: QueuedEvent[] = [];
  /** Each event's notice position (event-log.ts), -1 for a heartbeat or an unlogged notice. */
  readonly positions: number[] = [];
  /**
   * The acknowledged boundary, what the database keeps (queue-store.ts): events after baseEventId
   * are made, in order, from the notices after basePos. Rebuilding from the log there gives the
   * same events with the same IDs.
   */
  basePos: number;
  baseEventId = -1;
  /** The last notice position this queue has looked at (a notice at or below it is not taken again). */
  lastPos: number;
  /** Its events are not in memory (restored after a restart, or dropped while nobody polled): the next poll rebuilds them from the log. */
  spilled = false;
  /** Its row is in the database. */
  persisted = false;
  /** Its boundary changed since the database last saw it. */
  dirty = false;
  /**
   * The highest event ID its client acknowledged. Another node's copy of the queue may have handed
   * out events this copy has not made yet (round-robin polls): when this copy makes them, they are
   * dropped, not sent again.
   */
  ackedId = -1;
  /** The last poll time the database has for it (a restored queue: the time it was loaded). */
  storedTouched: number;
  /** The rebuild from the log under way, if any. */
  rebuilding: Promise<void> | null = null;
  /** Its places in the registry's FifoSets (registry.ts says which entry is which). */
  readonly fifoSlots = [0, 0, 0];
  private nextId = 0;
  private readonly typeSet: Set<string> | null;
  /** Set once the register read is done; until then notices wait in `early` with their stamps. */
  private snapshot: ReadSnapshot | null = null;
  private ready: boolean;
  private early: Notice[] = [];
  waiter: PollListener | null = null;
  /** performance.now() at which the waiting poll gets a heartbeat (the registry's one timer checks it). */
  waitDeadline = 0;
  /** The registry's number of the last notice delivered to this queue through its user (see recipientsOf). */
  reachedBy = 0;
  lastTouched: number;
  /** performance.now() of the last answer carrying events (the registry spaces answers by it). */
  lastAnsweredAt = -Infinity;

  constructor(
    readonly opts: QueueOptions,
    now: number,
    restored = false,
    startPos = -1,
  ) {
    this.typeSet = opts.eventTypes ? new Set(opts.eventTypes) : null;
    this.lastTouched = now;
    this.storedTouched = now;
    this.ready = restored;
    this.basePos = startPos;
    this.lastPos = startPos;
  }

  /** The register snapshot (stored with the queue, so a rebuild filters as the first delivery did). */
  get registerSnapshot(): ReadSnapshot | null {
    return this.snapshot;
  }

  /** A stored queue: ready, with its snapshot, its events to be rebuilt from its boundary. */
  static restore(opts: QueueOptions, now: number, snapshot: ReadSnapshot | null, basePos: number, baseEventId: number): ClientQueue {
    const q = new ClientQueue(opts, now, true, basePos);
    q.snapshot = snapshot;
    q.baseEventId = baseEventId;
    q.ackedId = baseEventId;
    q.nextId = baseEventId + 1;
    q.spilled = true;
    q.persisted = true;
    return q;
  }

  /** Drops the events from memory (they are in the log after the boundary). */
  spill(): void {
    this.events.length = 0;
    this.positions.length = 0;
    this.nextId = this.baseEventId + 1;
    this.spilled = true;
  }

  /** Starts a rebuild from the boundary: no events, IDs from the boundary on. */
  beginRebuild(): void {
    this.events.length = 0;
    this.positions.length = 0;
    this.nextId = this.baseEventId + 1;
    this.lastPos = this.basePos;
  }

  get id(): string {
    return this.opts.id;
  }

  wantsType(type: string): boolean {
    // Heartbeats are part of the protocol whatever the client asked for.
    return type === 'heartbeat' || this.typeSet === null || this.typeSet.has(type);
  }

  /** Whether this notice belongs in this queue (type filter, narrow, register snapshot). */
  accepts(notice: Notice): boolean {
    if (!this.wantsType(notice.event.type)) return false;
    // The legacy muted_topics event is left out for clients that asked for its replacement.
    if (notice.event.type === 'muted_topics' && this.typeSet?.has('user_topic')) return false;
    if (notice.requiresCapability !== undefined && this.opts.capabilities[notice.requiresCapability] !== true) return false;
    if (notice.unlessCapability !== undefined && this.opts.capabilities[notice.unlessCapability] === true) return false;
    if (notice.event.type === 'message' && this.opts.narrow.length) {
      return narrowAcceptsMessage(this.opts.narrow, notice.event.message as Record<string, unknown>, this.opts.userId, notice.flags?.[this.opts.userId] ?? []);
    }
    return true;
  }

  /** Notices that arrive before the register snapshot is known are held, then kept only if the snapshot missed them. */
  holdIfEarly(notice: Notice): boolean {
    if (this.ready) {
      if (this.snapshot && notice.stamp && this.snapshot.isVisible(notice.stamp)) return true;
      return false;
    }
    this.early.push(notice);
    return true;
  }

  /** Completes registration: returns the held notices the snapshot does not reflect, in order. */
  setSnapshot(snapshot: ReadSnapshot): Notice[] {
    this.snapshot = snapshot;
    this.ready = true;
    const keep = this.early.filter((n) => !n.stamp || !snapshot.isVisible(n.stamp));
    this.early = [];
    return keep;
  }

  /** Queues a copy: the event may be shared with other queues. pos: its notice's position. */
  push(event: Omit<QueuedEvent, 'id'>, pos = -1): void {
    this.events.push({ ...event, id: this.nextId++ } as QueuedEvent);
    this.positions.push(pos);
  }

  /** Queues the event itself, setting its id (made last, as push's copy has it): it must be this queue's own object. */
  pushOwn(event: Omit<QueuedEvent, 'id'>, pos = -1): void {
    (event as QueuedEvent).id = this.nextId++;
    this.events.push(event as QueuedEvent);
    this.positions.push(pos);
  }

  /**
   * A heartbeat, pushed only on an empty queue: it carries the last ID given out rather than a new
   * one, so it is never part of the numbering a rebuild from the log must repeat.
   */
  pushHeartbeat(): void {
    this.events.push({ type: 'heartbeat', id: this.nextId - 1 });
    this.positions.push(-1);
  }

  /** Drops events the client has acknowledged, and moves the boundary past the notices they complete. */
  acknowledge(lastEventId: number): void {
    if (lastEventId > this.ackedId) this.ackedId = lastEventId;
    let n = 0;
    const events = this.events;
    const positions = this.positions;
    while (n < events.length && events[n].id <= lastEventId) n++;
    if (n === 0) return;
    // The boundary moves after a notice only once all its events are acknowledged.
    for (let i = 0; i < n; i++) {
      const pos = positions[i];
      if (pos < 0 || (i + 1 < events.length && positions[i + 1] === pos)) continue;
      if (pos > this.basePos) {
        this.basePos = pos;
        this.baseEventId = events[i].id;
        this.dirty = true;
      }
    }
    // The usual case, everything acknowledged: popped, which keeps the array's room (splice and
    // length = 0 each allocate, and a queue is emptied after every answer).
    if (n === events.length) {
      while (events.length) events.pop();
      while (positions.length) positions.pop();
      if (this.lastPos > this.basePos && this.nextId - 1 >= this.baseEventId) {
        this.basePos = this.lastPos;
        this.baseEventId = this.nextId - 1;
        this.dirty = true;
      }
    } else {
      events.splice(0, n);
      positions.splice(0, n);
    }
  }

  /** Events after lastEventId, in order. */
  since(lastEventId: number): QueuedEvent[] {
    return this.events.filter((e) => e.id > lastEventId);
  }

  get lastEventId(): number {
    return this.nextId - 1;
  }

  toJSON(): unknown {
    return { opts: this.opts, nextId: this.nextId, events: this.events };
  }

  static fromJSON(json: { opts: QueueOptions; nextId: number; events: QueuedEvent[] }, now: number): ClientQueue {
    const q = new ClientQueue(json.opts, now, true);
    q.nextId = json.nextId;
    q.events.push(...json.events);
    for (const _e of json.events) q.positions.push(-1);
    return q;
  }
}
