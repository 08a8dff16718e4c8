// Carries committed notices to every node's queues: in-process for one node, NATS for several.
import { connect, type NatsConnection, type Subscription } from 'nats';
import type { Notice } from './types.js';

export interface EventBus {
  /** Sends notices to every node (this one included), in order. */
  publish(notices: Notice[]): void;
  /** Called by the node's registry for notices from any node. */
  subscribe(handler: (notices: Notice[]) => void): void;
  close(): Promise<void>;
}

export class LocalBus implements EventBus {
  private handler: ((notices: Notice[]) => void) | null = null;

  publish(notices: Notice[]): void {
    this.handler?.(notices);
  }

  subscribe(handler: (notices: Notice[]) => void): void {
    this.handler = handler;
  }

  async close(): Promise<void> {}
}

/** All nodes share one subject; NATS keeps per-publisher order, which is all queues need. */
export class NatsBus implements EventBus {
  private sub: Subscription | null = null;

  private constructor(
    private readonly nc: NatsConnection,
    private readonly subject: string,
  ) {}

  /** nats://host:port[?subject=name]; nodes that should see each other's events share the subject. */
  static async connect(url: string): Promise<NatsBus> {
    const u = new URL(url);
    const nc = await connect({ servers: u.host, name: 'parley' });
    return new NatsBus(nc, u.searchParams.get('subject') || 'parley.events');
  }

  publish(notices: Notice[]): void {
    this.nc.publish(this.subject, Buffer.from(JSON.stringify(notices)));
  }

  subscribe(handler: (notices: Notice[]) => void): void {
    this.sub = this.nc.subscribe(this.subject, {
      callback: (err, msg) => {
        if (err) return;
        handler(JSON.parse(Buffer.from(msg.data).toString('utf8')) as Notice[]);
      },
    });
  }

  async close(): Promise<void> {
    this.sub?.unsubscribe();
    await this.nc.drain();
  }
}

export async function openBus(url: string): Promise<EventBus> {
  if (!url || url === 'local') return new LocalBus();
  if (url.startsWith('nats://')) return NatsBus.connect(url);
  throw new Error(`Unsupported bus URL "${url}" (use "local" or nats://host:port)`);
}
