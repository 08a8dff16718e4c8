// Topic visibility (user_topics) tables.
import type { Kysely } from 'kysely';
import type { Dialect } from '../dialect.js';

export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  // One row per (user, channel, topic) with a policy other than "none"; topics match case-insensitively,
  // so the key is the lower-cased topic and the primary key also serves every per-user read.
  await db.schema
    .createTable('user_topics')
    .addColumn('user_id', 'integer', (c) => c.notNull())
    .addColumn('stream_id', 'integer', (c) => c.notNull())
    .addColumn('topic', 'text', (c) => c.notNull())
    .addColumn('topic_key', 'text', (c) => c.notNull())
    .addColumn('visibility_policy', 'integer', (c) => c.notNull())
    .addColumn('last_updated', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('user_topics_pk', ['user_id', 'stream_id', 'topic_key'])
    .execute();
  // Who set a policy on a topic (e.g. to find the followers of a topic).
  await db.schema.createIndex('user_topics_topic').on('user_topics').columns(['stream_id', 'topic_key']).execute();
}
