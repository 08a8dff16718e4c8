// Durable event queues: a queue's registration and acknowledged boundary in the database, and the
// log reads that rebuild its events after a restart or once it was dropped from memory.
import { sql, type Kysely } from 'kysely';
import type { DB } from '../store/schema.js';
import type { Store } from '../store/store.js';
import { snapshotFromJSON } from '../store/store.js';
import { ClientQueue, type QueueOptions } from './queue.js';
import { batchOfRow, fillRecipients, noticesOf, readLog } from './event-log.js';
import type { Notice } from './types.js';

/** Queues written per transaction by a checkpoint. */
const UPDATE_CHUNK = 1000;
const INSERT_QUEUE = 'INSERT INTO event_queues (id, node_id, user_id, realm_id, options, snapshot, base_pos, base_event_id, last_touched) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)';
// Several nodes may serve one queue: the boundary and last poll only move forward (in an UPDATE every
// right-hand side reads the row as it was, so base_event_id's CASE sees the old base_pos).
const UPDATE_BOUNDARY =
  'UPDATE event_queues SET base_event_id = CASE WHEN ?1 > base_pos THEN ?2 ELSE base_event_id END, base_pos = max(base_pos, ?1), last_touched = max(last_touched, ?3) WHERE id = ?4';

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
    const values = [q.id, this.nodeId, q.opts.userId, q.opts.realmId, JSON.stringify(q.opts), snapshot ? JSON.stringify(snapshot.toJSON()) : null, q.basePos, q.baseEventId, q.lastTouched];
    await this.store.write(async (tx) => {
      // SQLite: a statement prepared once (every register stores its queue; the query builder cost as much as the write).
      if (this.store.dialect === 'sqlite') this.store.sqliteRun(INSERT_QUEUE, values);
      else await sql`INSERT INTO event_queues (id, node_id, user_id, realm_id, options, snapshot, base_pos, base_event_id, last_touched) VALUES (${sql.join(values)})`.execute(tx);
    });
  }

  /**
   * Writes moved boundaries and deletes removed queues, UPDATE_CHUNK queues per transaction, so a
   * node with many queues never holds the event loop or the write lock long.
   */
  async update(changed: QueueBoundary[], removed: string[], expired: { id: string; lastTouched: number }[], abandonedBefore: number): Promise<void> {
    for (let i = 0; i < removed.length; i += UPDATE_CHUNK) {
      const ids = removed.slice(i, i + UPDATE_CHUNK);
      await this.store.write((tx) => tx.deleteFrom('event_queues').where('id', 'in', ids).execute());
    }
    // Idle here: gone unless another node has served it since (its stored last poll is later).
    for (let i = 0; i < expired.length; i += UPDATE_CHUNK) {
      const part = expired.slice(i, i + UPDATE_CHUNK);
      await this.store.write(async (tx) => {
        for (const e of part) await tx.deleteFrom('event_queues').where('id', '=', e.id).where('last_touched', '<=', e.lastTouched).execute();
      });
    }
    await this.store.write((tx) => tx.deleteFrom('event_queues').where('last_touched', '<', abandonedBefore).execute());
    for (let i = 0; i < changed.length; i += UPDATE_CHUNK) {
      const part = changed.slice(i, i + UPDATE_CHUNK);
      await this.store.write(async (tx) => {
        if (this.store.dialect === 'sqlite') {
          for (const c of part) this.store.sqliteRun(UPDATE_BOUNDARY, [c.basePos, c.baseEventId, c.lastTouched, c.id]);
          return;
        }
        // Several nodes may serve one queue: the boundary and last poll only move forward.
        await sql`UPDATE event_queues AS q SET base_pos = GREATEST(q.base_pos, v.p), base_event_id = CASE WHEN v.p > q.base_pos THEN v.e ELSE q.base_event_id END, last_touched = GREATEST(q.last_touched, v.t)
          FROM (SELECT unnest(${part.map((c) => c.id)}::text[]) AS id, unnest(${part.map((c) => c.basePos)}::bigint[]) AS p,
                       unnest(${part.map((c) => c.baseEventId)}::bigint[]) AS e, unnest(${part.map((c) => c.lastTouched)}::bigint[]) AS t) v
          WHERE q.id = v.id`.execute(tx);
      });
    }
  }

  /** Log rows after afterId as notices with their positions. */
  async readLog(afterId: number, limit: number): Promise<{ id: number; notices: Notice[] }[]> {
    const batches = (await readLog(this.store.db, afterId, limit)).map((r) => batchOfRow(r, this.store.dialect));
    await fillRecipients(this.store.db, batches);
    return batches.map((b) => ({ id: b.id, notices: noticesOf(b) }));
  }

  async delete(id: string): Promise<void> {
    await this.store.write((tx) => tx.deleteFrom('event_queues').where('id', '=', id).execute());
  }

  /**
   * One stored queue (any node's), with a fresh idle clock, and the last poll any node recorded for
   * it; undefined when none has that id.
   */
  async load(id: string, now: number): Promise<{ queue: ClientQueue; lastTouched: number } | undefined> {
    const r = await (this.store.db as Kysely<DB>).selectFrom('event_queues').selectAll().where('id', '=', id).executeTakeFirst();
    if (!r) return undefined;
    const queue = ClientQueue.restore(JSON.parse(r.options) as QueueOptions, now, snapshotFromJSON(r.snapshot ? JSON.parse(r.snapshot) : null), Number(r.base_pos), Number(r.base_event_id));
    return { queue, lastTouched: Number(r.last_touched) };
  }

  /** This node's stored queues, each with a fresh idle clock (its client could not poll while the node was down). */
  async loadNode(now: number): Promise<ClientQueue[]> {
    const rows = await (this.store.db as Kysely<DB>).selectFrom('event_queues').selectAll().where('node_id', '=', this.nodeId).execute();
    return rows.map((r) => ClientQueue.restore(JSON.parse(r.options) as QueueOptions, now, snapshotFromJSON(r.snapshot ? JSON.parse(r.snapshot) : null), Number(r.base_pos), Number(r.base_event_id)));
  }
}
