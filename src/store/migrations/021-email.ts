// Email both ways: pending missed-message notifications, reply addresses, unsubscribe tokens, digest times.
import type { Kysely } from 'kysely';
import type { Dialect } from '../dialect.js';

export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  const id = (t: string) =>
    db.schema.createTable(t).addColumn('id', dialect === 'postgres' ? 'serial' : 'integer', (c) => (dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement()));

  // One row per (recipient, message) that may become an email. A worker claims a user's due rows
  // (claim + claimed_until, as reminders are claimed), sends one email, then deletes them.
  await id('email_pending')
    .addColumn('realm_id', 'integer', (c) => c.notNull().references('realms.id'))
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id'))
    .addColumn('message_id', 'integer', (c) => c.notNull())
    .addColumn('trigger', 'text', (c) => c.notNull())
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .addColumn('claim', 'text')
    .addColumn('claimed_until', 'integer')
    .execute();
  await db.schema.createIndex('email_pending_user_message').on('email_pending').columns(['user_id', 'message_id']).unique().execute();
  await db.schema.createIndex('email_pending_claim').on('email_pending').columns(['claim']).execute();

  // The Reply-To address of a notification: replying posts in that message's conversation as user_id.
  await db.schema
    .createTable('email_reply_addresses')
    .addColumn('token', 'text', (c) => c.primaryKey())
    .addColumn('realm_id', 'integer', (c) => c.notNull().references('realms.id'))
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id'))
    .addColumn('message_id', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .execute();

  // The one-click unsubscribe link of a user for one kind of email.
  await db.schema
    .createTable('email_unsubscribe_tokens')
    .addColumn('token', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('email_unsubscribe_user_kind').on('email_unsubscribe_tokens').columns(['user_id', 'kind']).unique().execute();

  // When each user was last sent a digest (the digest worker claims a user by moving this forward).
  await db.schema
    .createTable('email_digest_state')
    .addColumn('user_id', 'integer', (c) => c.primaryKey().references('users.id'))
    .addColumn('last_sent_at', 'integer', (c) => c.notNull())
    .execute();
}
