// Web client sign-in: browser sessions and password-reset links (each stored only as a hash).
import type { Kysely } from 'kysely';
import type { Dialect } from '../dialect.js';

export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('web_sessions')
    // SHA-256 (hex) of the cookie's random token: a copy of the database signs nobody in.
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('realm_id', 'integer', (c) => c.notNull().references('realms.id'))
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id'))
    // Sent with every state-changing request (X-CSRF-Token); random, per session.
    .addColumn('csrf_token', 'text', (c) => c.notNull())
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .addColumn('expires_at', 'integer', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('web_sessions_user').on('web_sessions').column('user_id').execute();
  await db.schema
    .createTable('password_resets')
    .addColumn('key_hash', 'text', (c) => c.primaryKey())
    .addColumn('realm_id', 'integer', (c) => c.notNull().references('realms.id'))
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id'))
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .addColumn('expires_at', 'integer', (c) => c.notNull())
    .addColumn('used_at', 'integer')
    .execute();
}
