// Email-change confirmations: one row per emailed one-time key (stored hashed), until used or expired.
import type { Kysely } from 'kysely';
import type { Dialect } from '../dialect.js';

export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('email_changes')
    .addColumn('id', dialect === 'postgres' ? 'serial' : 'integer', (c) => (dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement()))
    .addColumn('key_hash', 'text', (c) => c.notNull().unique())
    .addColumn('realm_id', 'integer', (c) => c.notNull().references('realms.id'))
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id'))
    .addColumn('new_email', 'text', (c) => c.notNull())
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .addColumn('expires_at', 'integer', (c) => c.notNull())
    .addColumn('used_at', 'integer')
    .execute();
  await db.schema.createIndex('email_changes_user').on('email_changes').column('user_id').execute();
}
