// Users' mobile devices: legacy APNs / FCM push tokens, and logged-in devices (POST /register_client_device).
import type { Kysely } from 'kysely';
import type { Dialect } from '../dialect.js';

export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('push_devices')
    .addColumn('id', dialect === 'postgres' ? 'serial' : 'integer', (c) => (dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement()))
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('token', 'text', (c) => c.notNull())
    .addColumn('app_id', 'text')
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .execute();
  // A token registers once per user and kind (registering again only refreshes it).
  await db.schema.createIndex('push_devices_user_kind_token').on('push_devices').columns(['user_id', 'kind', 'token']).unique().execute();

  // A logged-in mobile device; its push fields stay empty while no push service is configured.
  await db.schema
    .createTable('client_devices')
    .addColumn('id', dialect === 'postgres' ? 'serial' : 'integer', (c) => (dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement()))
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id'))
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('client_devices_user').on('client_devices').columns(['user_id']).execute();
}
