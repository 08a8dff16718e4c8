// The only way to send events: actions record them in the event log inside their transaction
// (writeWithEvents; the send path's logInTransaction, then publishLogged after commit) or, for
// events with no transaction of their own (typing, a presence ping), just after the fact
// (publishCommitted); either way every node delivers them from the log's order (feed.ts).
import type { AppContext } from '../context.js';
import type { Transaction } from 'kysely';
import type { DB } from '../store/schema.js';
import type { CommitStamp, Tx } from '../store/store.js';
import type { EventBody, Outgoing } from './types.js';
import type { PendingRow } from './feed.js';

export type { Outgoing } from './types.js';

/** Publishes events produced by one committed transaction (logged in a write of their own right after it). */
export function publishCommitted(app: AppContext, realmId: number, stamp: CommitStamp | null, items: Outgoing[]): void {
  const kept = items.filter((i) => i.users.length || i.publicStreamId !== undefined);
  if (kept.length) app.feed.append(realmId, stamp, kept);
}

/**
 * Runs a write whose events are recorded in the event log inside its own transaction, so a crash
 * after the commit loses none, and delivered once it commits. events: the write's notices, made
 * from its result inside the transaction (an empty list logs nothing).
 */
export async function writeWithEvents<T>(app: AppContext, realmId: number, fn: (tx: Transaction<DB>) => Promise<T>, events: (result: T) => Outgoing[]): Promise<{ result: T; stamp: CommitStamp }> {
  const { result, stamp } = await app.store.write(async (tx) => {
    const value = await fn(tx);
    return { value, row: await app.feed.logInTransaction(tx, realmId, events(value)) };
  });
  publishLogged(app, result.row, stamp);
  return { result: result.value, stamp };
}

/** Records events in the event log inside the transaction that makes them true; publishLogged after its commit. */
export function logInTransaction(app: AppContext, tx: Tx, realmId: number, items: Outgoing[]): Promise<PendingRow | null> {
  return app.feed.logInTransaction(tx, realmId, items);
}

/** Delivers events recorded by logInTransaction, once their transaction committed. */
export function publishLogged(app: AppContext, row: PendingRow | null, stamp: CommitStamp): void {
  if (row) app.feed.published(row, stamp);
}

/** Convenience for a single event to a list of users. */
export function to(users: Iterable<number>, event: EventBody): Outgoing {
  return { users: [...new Set(users)], event };
}
