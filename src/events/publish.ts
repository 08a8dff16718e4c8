// The only way to send events: actions call this after their transaction committed.
import type { AppContext } from '../context.js';
import type { CommitStamp } from '../store/store.js';
import type { EventBody, Notice } from './types.js';

export type Outgoing = Omit<Notice, 'stamp' | 'realmId'>;

/** Publishes events produced by one committed transaction. */
export function publishCommitted(app: AppContext, realmId: number, stamp: CommitStamp | null, items: Outgoing[]): void {
  const notices = items.filter((i) => i.users.length || i.publicStreamId !== undefined).map((i) => ({ ...i, realmId, stamp }));
  if (notices.length) app.bus.publish(notices);
}

/** Convenience for a single event to a list of users. */
export function to(users: Iterable<number>, event: EventBody): Outgoing {
  return { users: [...new Set(users)], event };
}
