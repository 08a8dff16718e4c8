// Durable event queues: a queue's registration and acknowledged boundary in the database, and the
// log reads that rebuild its events after a restart or once it was dropped from memory.
import { sql, type Kysely } from 'kysely';
import type { DB } from '../store/schema.js';
import type { Store } from '../store/store.js';
import { snapshotFromJSON } from '../store/store.js';
import { ClientQueue, type QueueOptions } from './queue.js';
import { batchOfRow, fillRecipients, noticesOf, readLog } from './event-log.js';
import type { Notice } from './types.js';

export interface QueueBoundary {
  id: string;
  basePos: number;
  baseEventId: number;
  lastTouched: number;
}

export class DurableQueues {
  constructor(
    private readonly store: Store,
    private readonly nodeId: string,
  ) {}

  async insert(q: ClientQueue): Promise<void> {
    const snapshot = q.registerSnapshot;
    await this.store.write((tx) =>
      tx
        .insertInto('event_queues')
        .values({
          id: q.id,
          node_id: this.nodeId,
          user_id: q.opts.userId,
          realm_id: q.opts.realmId,
          options: JSON.stringify(q.opts),
          snapshot: snapshot ? JSON.stringify(snapshot.toJSON()) : null,
          base_pos: q.basePos,
          base_event_id: q.baseEventId,
          last_touched: q.lastTouched,
        })
        .execute(),
    );
  }

  /** Writes moved boundaries and deletes removed queues, in one transaction. */
  async update(changed: QueueBoundary[], removed: string[]): Promise<void> {
    await this.store.write(async (tx) => {
      if (removed.length) for (let i = 0; i < removed.length; i += 500) await tx.deleteFrom('event_queues').where('id', 'in', removed.slice(i, i + 500)).execute();
      if (!changed.length) return;
      if (this.store.dialect === 'postgres') {
        await sql`UPDATE event_queues AS q SET base_pos = v.p, base_event_id = v.e, last_touched = v.t
          FROM (SELECT unnest(${changed.map((c) => c.id)}::text[]) AS id, unnest(${changed.map((c) => c.basePos)}::bigint[]) AS p,
                       unnest(${changed.map((c) => c.baseEventId)}::bigint[]) AS e, unnest(${changed.map((c) => c.lastTouched)}::bigint[]) AS t) v
          WHERE q.id = v.id`.execute(tx);
      } else {
        for (const c of changed) await tx.updateTable('event_queues').set({ base_pos: c.basePos, base_event_id: c.baseEventId, last_touched: c.lastTouched }).where('id', '=', c.id).execute();
      }
    });
  }

  /** Log rows after afterId as notices with their positions. */
  async readLog(afterId: number, limit: number): Promise<{ id: number; notices: Notice[] }[]> {
    const batches = (await readLog(this.store.db, afterId, limit)).map((r) => batchOfRow(r, this.store.dialect));
    await fillRecipients(this.store.db, batches);
    return batches.map((b) => ({ id: b.id, notices: noticesOf(b) }));
  }

  /** This node's stored queues, each with a fresh idle clock (its client could not poll while the node was down). */
  async loadNode(now: number): Promise<ClientQueue[]> {
    const rows = await (this.store.db as Kysely<DB>).selectFrom('event_queues').selectAll().where('node_id', '=', this.nodeId).execute();
    return rows.map((r) => ClientQueue.restore(JSON.parse(r.options) as QueueOptions, now, snapshotFromJSON(r.snapshot ? JSON.parse(r.snapshot) : null), Number(r.base_pos), Number(r.base_event_id)));
  }
}
