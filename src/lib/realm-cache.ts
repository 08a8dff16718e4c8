// A per-organization value kept in memory on each node, loaded on first use and dropped on every node by a control message.
import type { AppContext } from '../context.js';
import type { ControlMessage, EventBus } from '../events/bus.js';

/** Control messages that name an organization whose cached value is stale. */
type RealmControl = Extract<ControlMessage, { realmId: number }>['type'];

/**
 * One value per realm (alert words, linkifiers…): a query on first use, then from memory until
 * `changed` is called after a commit. Kept per bus, so each node (and each test server) has its
 * own; an epoch makes a load that raced a change return its result without caching it.
 */
export class RealmCache<T> {
  private readonly byBus = new WeakMap<EventBus, { values: Map<number, T>; epoch: number }>();

  constructor(
    private readonly controlType: RealmControl,
    private readonly load: (app: AppContext, realmId: number) => Promise<T>,
  ) {}

  private stateOf(bus: EventBus): { values: Map<number, T>; epoch: number } {
    let s = this.byBus.get(bus);
    if (!s) {
      const state = { values: new Map<number, T>(), epoch: 0 };
      bus.subscribeControl((msg) => {
        if (msg.type === this.controlType && 'realmId' in msg) {
          state.epoch++;
          state.values.delete(msg.realmId);
        }
      });
      this.byBus.set(bus, (s = state));
    }
    return s;
  }

  async get(app: AppContext, realmId: number): Promise<T> {
    const s = this.stateOf(app.bus);
    const hit = s.values.get(realmId);
    if (hit !== undefined) return hit;
    const epoch = s.epoch;
    const value = await this.load(app, realmId);
    if (epoch === s.epoch) s.values.set(realmId, value);
    return value;
  }

  /** Call after committing a change: this node drops the value at once, the others on the bus message. */
  changed(app: AppContext, realmId: number): void {
    const s = this.stateOf(app.bus);
    s.epoch++;
    s.values.delete(realmId);
    app.bus.publishControl({ type: this.controlType, realmId } as ControlMessage);
  }
}
