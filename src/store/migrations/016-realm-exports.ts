// Data exports requested through the API (POST /export/realm): one row per export, its state and file.
import type { Kysely } from 'kysely';
import type { Dialect } from '../dialect.js';

export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('realm_exports')
    .addColumn('id', dialect === 'postgres' ? 'serial' : 'integer', (c) => (dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement()))
    .addColumn('realm_id', 'integer', (c) => c.notNull())
    .addColumn('acting_user_id', 'integer', (c) => c.notNull())
    .addColumn('export_type', 'text', (c) => c.notNull())
    .addColumn('export_time', 'integer', (c) => c.notNull())
    .addColumn('pending', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('failed_time', 'integer')
    .addColumn('deleted_time', 'integer')
    .addColumn('file_key', 'text')
    .execute();
  await db.schema.createIndex('realm_exports_realm').on('realm_exports').columns(['realm_id', 'id']).execute();
}
