// The recipient index carries each message's topic, so register's unread read finds (channel, topic, ID) from the index alone.
import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../dialect.js';

export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  // Replaces messages_recipient (recipient_id, id): every range it served, this one serves too, and
  // a send still updates one index for it. Reading the topic from the message row instead cost half
  // of the 50,000-unread register (docs/performance.md, "Register").
  await sql`CREATE INDEX messages_recipient_topic_text ON messages (recipient_id, id, topic)`.execute(db);
  await db.schema.dropIndex('messages_recipient').execute();
}
