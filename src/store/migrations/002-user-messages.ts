// Clusters user_messages by (message_id, user_id) so a send appends instead of touching one leaf per
// recipient, keeps only partial per-user indexes on rare rows, and adds per-subscription unread floors.
import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../dialect.js';

/** Partial indexes over the rare rows; their predicates must match the query text exactly (both planners). */
export const USER_MESSAGE_INDEXES: [name: string, where: string][] = [
  ['user_messages_private', '(flags & 256) <> 0'],
  ['user_messages_starred', '(flags & 2) <> 0'],
  ['user_messages_mentioned', '(flags & 56) <> 0'],
  ['user_messages_alerted', '(flags & 64) <> 0'],
  // Unread rows no channel floor covers: direct messages, mentions and unfloored rows (512).
  ['user_messages_unread_personal', '(flags & 1) = 0 AND (flags & 824) <> 0'],
];

export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  // Floors first, while the old per-user unread index still makes the minimum cheap to find.
  await sql`ALTER TABLE subscriptions ADD COLUMN unread_floor integer NOT NULL DEFAULT 0`.execute(db);
  await sql`UPDATE subscriptions SET unread_floor = coalesce(
      (SELECT min(um.message_id) FROM user_messages um JOIN messages m ON m.id = um.message_id
        WHERE um.user_id = subscriptions.user_id AND m.stream_id = subscriptions.stream_id AND (um.flags & 1) = 0),
      (SELECT coalesce(max(id), 0) + 1 FROM messages))`.execute(db);
  // Unread channel rows without any subscription row (moved in, or sent unsubscribed) get no floor.
  await sql`UPDATE user_messages SET flags = flags | 512
    WHERE (flags & 1) = 0 AND (flags & 256) = 0 AND NOT EXISTS (
      SELECT 1 FROM messages m JOIN subscriptions s ON s.stream_id = m.stream_id AND s.user_id = user_messages.user_id
      WHERE m.id = user_messages.message_id)`.execute(db);

  await sql`CREATE TABLE user_messages_new (
      message_id integer NOT NULL,
      user_id integer NOT NULL,
      flags integer NOT NULL DEFAULT 0,
      CONSTRAINT user_messages_by_message_pk PRIMARY KEY (message_id, user_id)
    )${dialect === 'sqlite' ? sql` WITHOUT ROWID` : sql``}`.execute(db);
  await sql`INSERT INTO user_messages_new (message_id, user_id, flags) SELECT message_id, user_id, flags FROM user_messages ORDER BY message_id, user_id`.execute(db);
  // Dropping the table drops its old indexes (user_messages_message, _unread, _starred, _mentioned, _private).
  await sql`DROP TABLE user_messages`.execute(db);
  await sql`ALTER TABLE user_messages_new RENAME TO user_messages`.execute(db);
  for (const [name, where] of USER_MESSAGE_INDEXES) await sql`CREATE INDEX ${sql.raw(name)} ON user_messages (user_id, message_id) WHERE ${sql.raw(where)}`.execute(db);
}
