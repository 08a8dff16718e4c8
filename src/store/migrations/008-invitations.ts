// Invitations, channel email addresses and video-call authorizations.
import type { Kysely } from 'kysely';
import type { Dialect } from '../dialect.js';

export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  const idColumn = dialect === 'postgres' ? 'serial' : 'integer';
  // One row per emailed invitation; the one-time key is stored hashed, like email-change keys.
  await db.schema
    .createTable('invitations')
    .addColumn('id', idColumn, (c) => (dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement()))
    .addColumn('realm_id', 'integer', (c) => c.notNull().references('realms.id'))
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('email_key', 'text', (c) => c.notNull())
    .addColumn('key_hash', 'text', (c) => c.notNull().unique())
    .addColumn('invited_by_id', 'integer', (c) => c.notNull().references('users.id'))
    .addColumn('invited_at', 'integer', (c) => c.notNull())
    .addColumn('expires_at', 'integer')
    .addColumn('invited_as', 'integer', (c) => c.notNull())
    .addColumn('stream_ids', 'text', (c) => c.notNull())
    .addColumn('group_ids', 'text', (c) => c.notNull())
    .addColumn('include_realm_default_subscriptions', 'integer', (c) => c.notNull())
    .addColumn('notify_referrer_on_join', 'integer', (c) => c.notNull())
    .addColumn('welcome_message_custom_text', 'text')
    // 0 pending, 1 accepted, 2 revoked.
    .addColumn('status', 'integer', (c) => c.notNull())
    .addColumn('accepted_user_id', 'integer')
    .execute();
  // The daily limit counts an organization's invitations by time; listings filter by realm too.
  await db.schema.createIndex('invitations_realm_time').on('invitations').columns(['realm_id', 'invited_at']).execute();

  await db.schema
    .createTable('channel_email_addresses')
    .addColumn('id', idColumn, (c) => (dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement()))
    .addColumn('realm_id', 'integer', (c) => c.notNull().references('realms.id'))
    .addColumn('stream_id', 'integer', (c) => c.notNull().references('streams.id'))
    .addColumn('creator_id', 'integer', (c) => c.notNull().references('users.id'))
    .addColumn('sender_id', 'integer', (c) => c.notNull().references('users.id'))
    .addColumn('email_token', 'text', (c) => c.notNull().unique())
    .addColumn('date_created', 'integer', (c) => c.notNull())
    .addUniqueConstraint('channel_email_addresses_key', ['stream_id', 'creator_id', 'sender_id'])
    .execute();

  await db.schema
    .createTable('video_call_tokens')
    .addColumn('user_id', 'integer', (c) => c.primaryKey().references('users.id'))
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('token', 'text', (c) => c.notNull())
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .execute();
}
