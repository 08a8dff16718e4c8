// Webex authorizations (one OAuth token per user), who deleted a message's edit history, and the
// workplace_users_group setting (role:nobody) for organizations created before it existed.
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

  // Group settings are stored as group IDs from the organization's creation on: add the new one.
  const q = db as unknown as Kysely<{ realms: { id: number; settings: string }; user_groups: { id: number; realm_id: number; name: string | null; is_system_group: number } }>;
  for (const realm of await q.selectFrom('realms').select(['id', 'settings']).execute()) {
    const settings = JSON.parse(realm.settings || '{}') as Record<string, unknown>;
    if (typeof settings.workplace_users_group === 'number') continue;
    const nobody = await q.selectFrom('user_groups').select('id').where('realm_id', '=', realm.id).where('name', '=', 'role:nobody').where('is_system_group', '=', 1).executeTakeFirst();
    if (!nobody) continue;
    settings.workplace_users_group = nobody.id;
    await q.updateTable('realms').set({ settings: JSON.stringify(settings) }).where('id', '=', realm.id).execute();
  }
}
