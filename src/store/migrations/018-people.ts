// People: bot storage, user statuses, muted users and outgoing-webhook bot services.
import type { Kysely } from 'kysely';
import type { Dialect } from '../dialect.js';

export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  // A bot's key-value storage (GET/PUT/DELETE /bot_storage); the size limit counts key and value characters.
  await db.schema
    .createTable('bot_storage')
    .addColumn('bot_id', 'integer', (c) => c.notNull().references('users.id'))
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('value', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('bot_storage_pk', ['bot_id', 'key'])
    .execute();

  // One row per user who ever set a status; empty text and emoji name mean no status.
  await db.schema
    .createTable('user_status')
    .addColumn('user_id', 'integer', (c) => c.primaryKey().references('users.id'))
    .addColumn('realm_id', 'integer', (c) => c.notNull())
    .addColumn('status_text', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('emoji_name', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('emoji_code', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('reaction_type', 'text', (c) => c.notNull().defaultTo('unicode_emoji'))
    .addColumn('timestamp', 'integer', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('user_status_realm').on('user_status').columns(['realm_id']).execute();

  // Who muted whom; the send path reads it by the muted user (the sender).
  await db.schema
    .createTable('muted_users')
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id'))
    .addColumn('muted_user_id', 'integer', (c) => c.notNull().references('users.id'))
    .addColumn('realm_id', 'integer', (c) => c.notNull())
    .addColumn('date_muted', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('muted_users_pk', ['user_id', 'muted_user_id'])
    .execute();
  await db.schema.createIndex('muted_users_muted').on('muted_users').columns(['muted_user_id', 'user_id']).execute();

  // An outgoing-webhook bot's service: where its triggers are POSTed, and the token sent with them.
  await db.schema
    .createTable('bot_services')
    .addColumn('bot_id', 'integer', (c) => c.primaryKey().references('users.id'))
    .addColumn('base_url', 'text', (c) => c.notNull())
    .addColumn('interface', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('token', 'text', (c) => c.notNull())
    .execute();
}
