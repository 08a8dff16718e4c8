// Indexes for register's user reads: an organization's deactivated users, and a member's own bots.
import type { Kysely } from 'kysely';
import type { Dialect } from '../dialect.js';

export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  // Subscriber counts and group members leave out deactivated users: found here, not by joining every row to users.
  await db.schema.createIndex('users_realm_active').on('users').columns(['realm_id', 'is_active', 'id']).execute();
  // realm_bots of a member who is not an administrator: their own bots, without reading every user.
  await db.schema.createIndex('users_bot_owner').on('users').columns(['bot_owner_id']).execute();
}
