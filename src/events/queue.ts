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
  ) {
    this.typeSet = opts.eventTypes ? new Set(opts.eventTypes) : null;
    this.lastTouched = now;
    this.ready = restored;
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

  /** Queues a copy: the event may be shared with other queues. */
  push(event: Omit<QueuedEvent, 'id'>): void {
    this.events.push({ ...event, id: this.nextId++ } as QueuedEvent);
  }

  /** Queues the event itself, setting its id (made last, as push's copy has it): it must be this queue's own object. */
  pushOwn(event: Omit<QueuedEvent, 'id'>): void {
    (event as QueuedEvent).id = this.nextId++;
    this.events.push(event as QueuedEvent);
  }

  /** Drops events the client has acknowledged. */
  acknowledge(lastEventId: number): void {
    let n = 0;
    const events = this.events;
    while (n < events.length && events[n].id <= lastEventId) n++;
    // The usual case, everything acknowledged: popped, which keeps the array's room (splice and
    // length = 0 each allocate, and a queue is emptied after every answer).
    if (n === events.length) while (events.length) events.pop();
    else if (n) events.splice(0, n);
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
    return q;
  }
}
