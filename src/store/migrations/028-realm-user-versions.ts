// SQLite: a per-organization counter that every change to its users or their profile data raises, in the same transaction (register's cached realm_users).
import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../dialect.js';

/** Raises the organization's counter; REALM is an SQL expression for its ID. */
const bump = (realm: string) => `
    INSERT OR IGNORE INTO realm_user_versions (realm_id, version) VALUES (${realm}, 0);
    UPDATE realm_user_versions SET version = version + 1 WHERE realm_id = ${realm};`;

export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  // PostgreSQL has no counter: its cache entries are keyed by each row's content (lib/state/user-json.ts),
  // and a row counter there would make concurrent changes to one organization's users wait on each other.
  if (dialect !== 'sqlite') return;
  await sql`CREATE TABLE realm_user_versions (realm_id INTEGER PRIMARY KEY, version INTEGER NOT NULL)`.execute(db);
  // Triggers, so that no write path (actions, import, a bulk loader) can change a user without it.
  const triggers: [name: string, event: string, table: string, realm: string][] = [
    ['users_version_insert', 'INSERT', 'users', 'NEW.realm_id'],
    ['users_version_update', 'UPDATE', 'users', 'NEW.realm_id'],
    ['users_version_delete', 'DELETE', 'users', 'OLD.realm_id'],
    ['profile_values_version_insert', 'INSERT', 'custom_profile_field_values', '(SELECT realm_id FROM users WHERE id = NEW.user_id)'],
    ['profile_values_version_update', 'UPDATE', 'custom_profile_field_values', '(SELECT realm_id FROM users WHERE id = NEW.user_id)'],
    ['profile_values_version_delete', 'DELETE', 'custom_profile_field_values', '(SELECT realm_id FROM users WHERE id = OLD.user_id)'],
  ];
  for (const [name, event, table, realm] of triggers) {
    await sql.raw(`CREATE TRIGGER ${name} AFTER ${event} ON ${table} FOR EACH ROW BEGIN ${bump(realm)} END`).execute(db);
  }
}
