// The original's special permission to create accounts through POST /users (granted by the operator, never through the API).
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('users').addColumn('can_create_users', 'integer', (c) => c.notNull().defaultTo(0)).execute();
}
