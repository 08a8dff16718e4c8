// Durable events: the event log (each committed transaction's notices, in commit order), the
// registered event queues with their acknowledged position, and the live nodes (unique node ids).
import type { Kysely } from 'kysely';
import type { Dialect } from '../dialect.js';

export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  const pg = dialect === 'postgres';
  // id: the delivery order (PostgreSQL: assigned under a transaction lock, so in commit order).
  // SQLite: a plain rowid (AUTOINCREMENT's bookkeeping row cost a send more than the row itself);
  // it keeps growing because pruning never deletes the newest row (event-log.ts).
  await db.schema
    .createTable('event_log')
    .addColumn('id', pg ? 'bigserial' : 'integer', (c) => c.primaryKey())
    .addColumn('realm_id', 'integer', (c) => c.notNull())
    // The commit stamp (SQLite: the commit number; PostgreSQL: the transaction id), for register snapshots.
    .addColumn('stamp', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    // The notices as JSON (Outgoing[]: recipients, event, flags…).
    .addColumn('body', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('event_queues')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('node_id', 'text', (c) => c.notNull())
    .addColumn('user_id', 'integer', (c) => c.notNull())
    .addColumn('realm_id', 'integer', (c) => c.notNull())
    // QueueOptions and the register snapshot, as JSON.
    .addColumn('options', 'text', (c) => c.notNull())
    .addColumn('snapshot', 'text')
    // Events after base_event_id are made from the notices after position base_pos (event-log.ts).
    .addColumn('base_pos', 'bigint', (c) => c.notNull())
    .addColumn('base_event_id', 'bigint', (c) => c.notNull())
    .addColumn('last_touched', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('event_queues_user').on('event_queues').columns(['user_id']).execute();
  await db.schema
    .createTable('event_nodes')
    .addColumn('node_id', 'text', (c) => c.primaryKey())
    .addColumn('instance', 'text', (c) => c.notNull())
    .addColumn('seen_at', 'bigint', (c) => c.notNull())
    .execute();
}
