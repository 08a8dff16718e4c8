// Scheduled messages (kept until the transaction that sends them deletes them) and reusable invitation links.
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

  // A reusable invitation link: each sign-up through it becomes a one-time email invitation,
  // accepted by the usual flow. The key is kept (not only its hash): administrators see the link again.
  await id('multiuse_invites')
    .addColumn('realm_id', 'integer', (c) => c.notNull().references('realms.id'))
    .addColumn('link_key', 'text', (c) => c.notNull().unique())
    .addColumn('invited_by_id', 'integer', (c) => c.notNull().references('users.id'))
    .addColumn('invited_at', 'integer', (c) => c.notNull())
    .addColumn('expires_at', 'integer')
    .addColumn('invited_as', 'integer', (c) => c.notNull())
    .addColumn('stream_ids', 'text', (c) => c.notNull())
    .addColumn('group_ids', 'text', (c) => c.notNull())
    .addColumn('include_realm_default_subscriptions', 'integer', (c) => c.notNull())
    .addColumn('welcome_message_custom_text', 'text')
    .addColumn('status', 'integer', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('multiuse_invites_realm').on('multiuse_invites').columns(['realm_id', 'status']).execute();
}
