// Bot settings: default channels a bot sends to and registers for.
import type { Kysely } from 'kysely';
import type { Dialect } from '../dialect.js';

export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  // One row per bot whose defaults differ from none; absent means no default channels.
  await db.schema
    .createTable('bot_settings')
    .addColumn('user_id', 'integer', (c) => c.primaryKey().references('users.id'))
    .addColumn('default_sending_stream_id', 'integer')
    .addColumn('default_events_register_stream_id', 'integer')
    .addColumn('default_all_public_streams', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();

}
