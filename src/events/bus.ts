// Carries committed notices (and small cache-invalidation messages) to every node: in-process for one node, NATS for several.
import type { NatsConnection, Subscription } from 'nats';
import type { LogBatch } from './event-log.js';

/** A node-to-node message that is not an event: e.g. "drop this user from your caches". */
export type ControlMessage =
  | { type: 'user_changed'; userId: number }
  /** An organization's row (name, settings) changed: every node drops its cached rows (lib/caches.ts). */
  | { type: 'realm_changed'; realmId: number }
  | { type: 'alert_words_changed'; realmId: number }
  /** Someone muted or unmuted a user: every node drops its cached muters (lib/muted-users.ts). */
  | { type: 'muted_users_changed'; realmId: number }
  /** An outgoing-webhook bot was created, changed or deactivated: every node drops its cached list (lib/outgoing-webhooks.ts). */
  | { type: 'bot_services_changed'; realmId: number }
  /** The organization's linkifiers changed: every node drops its cached list (lib/markdown/render-options.ts). */
  | { type: 'linkifiers_changed'; realmId: number }
  /** Who gets channel or followed-topic emails changed: every node drops its list (lib/mail/watchers.ts). */
  | { type: 'email_watchers_changed'; realmId: number }
  /** A deactivated user's event queues are removed on every node. */
  | { type: 'user_deactivated'; userId: number }
  /** A client deleted its event queue (on any node): every node drops its copy. */
  | { type: 'queue_deleted'; queueId: string };

export interface EventBus {
  /**
   * Tells every other node that a log row committed (its text is the row's body, not serialized
   * again). The log is the record: a lost message only delays delivery until a node catches up.
   */
  publish(batch: LogBatch, body: string): void;
  /** Called for rows published by other nodes; seen(id) true skips parsing a row already delivered. */
  subscribe(handler: (batch: LogBatch) => void, seen?: (id: number) => boolean): void;
  /** Called after the bus came back from an outage (nodes then catch up from the log). */
  onReconnect(handler: () => void): void;
  /** Whether other nodes may publish: a node polls the log for what it missed only then. */
  readonly shared: boolean;
  /** Sends a control message to every node (this one included). */
  publishControl(msg: ControlMessage): void;
  /** Called for control messages from any node; several handlers may subscribe. */
  subscribeControl(handler: (msg: ControlMessage) => void): void;
  /** Resolves when the bus is connected and answering (GET /readyz); rejects otherwise. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export class LocalBus implements EventBus {
  private readonly controlHandlers: ((msg: ControlMessage) => void)[] = [];
  readonly shared = false;

  /** One node: its feed delivered the row already. */
  publish(): void {}

  subscribe(): void {}

  onReconnect(): void {}

  publishControl(msg: ControlMessage): void {
    for (const h of this.controlHandlers) h(msg);
  }

  subscribeControl(handler: (msg: ControlMessage) => void): void {
    this.controlHandlers.push(handler);
  }

  /** In-process: always there. */
  async ping(): Promise<void> {}

  async close(): Promise<void> {}
}

/**
 * All nodes share one subject for notices; NATS keeps per-publisher order, which is all queues
 * need. Control messages use a sibling subject so they never sit behind a large notice batch.
 */
export class NatsBus implements EventBus {
  private readonly subs: Subscription[] = [];
  private readonly controlHandlers: ((msg: ControlMessage) => void)[] = [];
  private readonly reconnectHandlers: (() => void)[] = [];
  readonly shared = true;

  private constructor(
    private readonly nc: NatsConnection,
    private readonly subject: string,
  ) {
    this.subs.push(
      this.nc.subscribe(`${subject}.control`, {
        callback: (err, msg) => {
          if (err) return;
          const m = JSON.parse(Buffer.from(msg.data).toString('utf8')) as ControlMessage;
          for (const h of this.controlHandlers) h(m);
        },
      }),
    );
    void this.watchStatus();
  }

  private async watchStatus(): Promise<void> {
    for await (const s of this.nc.status()) {
      if (s.type === 'reconnect') for (const h of this.reconnectHandlers) h();
    }
  }

  /** nats://host:port[?subject=name]; nodes that should see each other's events share the subject. */
  static async connect(url: string): Promise<NatsBus> {
    const u = new URL(url);
    // Loaded only when a NATS bus is configured: a single-node server never pays for the module.
    const { connect } = await import('nats');
    // Reconnects forever (a committed write never fails because the bus is away; the log catches
    // nodes up when it is back), 250 ms to 2 s apart with jitter; publishes made meanwhile are
    // buffered by the client (up to 8 MB), and lost beyond that, which the log covers.
    const nc = await connect({
      servers: u.host,
      name: 'parley',
      maxReconnectAttempts: -1,
      waitOnFirstConnect: true,
      reconnectTimeWait: 250,
      reconnectDelayHandler: backoff(),
      reconnectJitter: 100,
      pingInterval: 10_000,
      maxPingOut: 2,
    });
    return new NatsBus(nc, u.searchParams.get('subject') || 'parley.events');
  }

  publish(batch: LogBatch, body: string): void {
    // The row's id first, so a receiver that has it already skips the parse.
    const text = `{"i":${batch.id},"r":${batch.realmId},"s":${JSON.stringify(batch.stamp)},"n":${body}}`;
    try {
      this.nc.publish(this.subject, Buffer.from(text));
    } catch {
      // Closed or over its reconnect buffer: the other nodes read the row from the log.
    }
  }

  subscribe(handler: (batch: LogBatch) => void, seen?: (id: number) => boolean): void {
    this.subs.push(
      this.nc.subscribe(this.subject, {
        callback: (err, msg) => {
          if (err) return;
          const text = Buffer.from(msg.data).toString('utf8');
          const id = Number(/^\{"i":(\d+)/.exec(text)?.[1]);
          if (!Number.isSafeInteger(id) || seen?.(id)) return;
          const m = JSON.parse(text) as { i: number; r: number; s: LogBatch['stamp']; n: LogBatch['notices'] };
          handler({ id: m.i, realmId: m.r, stamp: m.s, notices: m.n });
        },
      }),
    );
  }

  onReconnect(handler: () => void): void {
    this.reconnectHandlers.push(handler);
  }

  publishControl(msg: ControlMessage): void {
    try {
      this.nc.publish(`${this.subject}.control`, Buffer.from(JSON.stringify(msg)));
    } catch {
      // Closed or over its reconnect buffer: caches expire on their own (lib/caches.ts).
    }
  }

  subscribeControl(handler: (msg: ControlMessage) => void): void {
    this.controlHandlers.push(handler);
  }

  /** A round trip to the NATS server; fails at once while the client is disconnected (reconnecting). */
  async ping(): Promise<void> {
    await this.nc.rtt();
  }

  async close(): Promise<void> {
    for (const s of this.subs) s.unsubscribe();
    await this.nc.drain();
  }
}

/** Reconnect delays: 250 ms doubling to 2 s (the client adds jitter). */
function backoff(): () => number {
  let delay = 125;
  return () => (delay = Math.min(2000, delay * 2));
}

export async function openBus(url: string): Promise<EventBus> {
  if (!url || url === 'local') return new LocalBus();
  if (url.startsWith('nats://')) return NatsBus.connect(url);
  throw new Error(`Unsupported bus URL "${url}" (use "local" or nats://host:port)`);
}
