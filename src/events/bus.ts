// Carries committed notices (and small cache-invalidation messages) to every node: in-process for one node, NATS for several.
import type { NatsConnection, Subscription } from 'nats';
import type { Notice } from './types.js';

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
  | { type: 'user_deactivated'; userId: number };

export interface EventBus {
  /** Sends notices to every node (this one included), in order. */
  publish(notices: Notice[]): void;
  /** Called by the node's registry for notices from any node. */
  subscribe(handler: (notices: Notice[]) => void): void;
  /** Sends a control message to every node (this one included). */
  publishControl(msg: ControlMessage): void;
  /** Called for control messages from any node; several handlers may subscribe. */
  subscribeControl(handler: (msg: ControlMessage) => void): void;
  /** Resolves when the bus is connected and answering (GET /readyz); rejects otherwise. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export class LocalBus implements EventBus {
  private handler: ((notices: Notice[]) => void) | null = null;
  private readonly controlHandlers: ((msg: ControlMessage) => void)[] = [];

  publish(notices: Notice[]): void {
    this.handler?.(notices);
  }

  subscribe(handler: (notices: Notice[]) => void): void {
    this.handler = handler;
  }

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
  }

  /** nats://host:port[?subject=name]; nodes that should see each other's events share the subject. */
  static async connect(url: string): Promise<NatsBus> {
    const u = new URL(url);
    // Loaded only when a NATS bus is configured: a single-node server never pays for the module.
    const { connect } = await import('nats');
    const nc = await connect({ servers: u.host, name: 'parley' });
    return new NatsBus(nc, u.searchParams.get('subject') || 'parley.events');
  }

  publish(notices: Notice[]): void {
    this.nc.publish(this.subject, Buffer.from(JSON.stringify(notices)));
  }

  subscribe(handler: (notices: Notice[]) => void): void {
    this.subs.push(
      this.nc.subscribe(this.subject, {
        callback: (err, msg) => {
          if (err) return;
          handler(JSON.parse(Buffer.from(msg.data).toString('utf8')) as Notice[]);
        },
      }),
    );
  }

  publishControl(msg: ControlMessage): void {
    this.nc.publish(`${this.subject}.control`, Buffer.from(JSON.stringify(msg)));
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

export async function openBus(url: string): Promise<EventBus> {
  if (!url || url === 'local') return new LocalBus();
  if (url.startsWith('nats://')) return NatsBus.connect(url);
  throw new Error(`Unsupported bus URL "${url}" (use "local" or nats://host:port)`);
}
