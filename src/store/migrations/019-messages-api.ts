// Scheduled messages (kept until the transaction that sends them deletes them) and mobile push devices.
import type { Kysely } from 'kysely';
import type { Dialect } from '../dialect.js';

export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  const id = (t: string) =>
    db.schema.createTable(t).addColumn('id', dialect === 'postgres' ? 'serial' : 'integer', (c) => (dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement()));

  // Like reminders: the delivering transaction deletes the row as it inserts the message, so each
  // scheduled message is sent at most once however many nodes poll.
  await id('scheduled_messages')
    .addColumn('realm_id', 'integer', (c) => c.notNull().references('realms.id'))
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('stream_id', 'integer')
    .addColumn('to_user_ids', 'text')
    .addColumn('topic', 'text', (c) => c.notNull())
    .addColumn('content', 'text', (c) => c.notNull())
    .addColumn('rendered_content', 'text', (c) => c.notNull())
    .addColumn('scheduled_at', 'integer', (c) => c.notNull())
    .addColumn('read_by_sender', 'integer')
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .addColumn('failed', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('failure_message', 'text')
    .addColumn('claimed_until', 'integer')
    .execute();
  await db.schema.createIndex('scheduled_messages_due').on('scheduled_messages').columns(['failed', 'scheduled_at']).execute();
  await db.schema.createIndex('scheduled_messages_user').on('scheduled_messages').columns(['user_id', 'scheduled_at']).execute();
}
