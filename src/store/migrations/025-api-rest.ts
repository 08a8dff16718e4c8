// Webex authorizations (one OAuth token per user) and who deleted a message's edit history.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('webex_tokens')
    .addColumn('user_id', 'integer', (c) => c.primaryKey().references('users.id'))
    .addColumn('access_token', 'text', (c) => c.notNull())
    .addColumn('refresh_token', 'text')
    // Unix seconds after which the access token must be refreshed first; null: no expiry given.
    .addColumn('expires_at', 'integer')
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .execute();
  // No foreign key: messages are deleted by several paths, and a row left for a deleted message is never
  // read again (message IDs are never reused: serial on PostgreSQL, AUTOINCREMENT on SQLite).
  await db.schema
    .createTable('message_history_deletions')
    .addColumn('message_id', 'integer', (c) => c.primaryKey())
    .addColumn('deleted_by', 'integer', (c) => c.notNull())
    .addColumn('deleted_at', 'integer', (c) => c.notNull())
    .execute();
}
