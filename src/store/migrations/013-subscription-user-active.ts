// Subscriptions carry their user's active state, so a send finds its recipients from one index alone.
import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../dialect.js';

export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  // A copy of users.is_active, kept equal by every action that changes it (actions/user-active.ts).
  // Looking each subscriber's user up by key took a quarter of PostgreSQL's work for a send to
  // 100 subscribers (docs/performance.md, "Storing a message").
  await db.schema.alterTable('subscriptions').addColumn('user_active', 'integer', (c) => c.notNull().defaultTo(1)).execute();
  await sql`UPDATE subscriptions SET user_active = 0 WHERE user_id IN (SELECT id FROM users WHERE is_active = 0)`.execute(db);
  await db.schema.dropIndex('subscriptions_stream').execute();
  await db.schema.createIndex('subscriptions_stream').on('subscriptions').columns(['stream_id', 'active', 'user_active', 'user_id']).execute();
}
