// SQLite: counters that triggers raise whenever a user's channel unreads can change other than by new messages (register's kept unread_msgs).
import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../dialect.js';

/** Raises a counter row of TABLE keyed by KEYS (column → SQL expression), creating it at 1. */
const bump = (table: string, keys: Record<string, string>) => `
    INSERT INTO ${table} (${Object.keys(keys).join(', ')}, version) VALUES (${Object.values(keys).join(', ')}, 1)
      ON CONFLICT (${Object.keys(keys).join(', ')}) DO UPDATE SET version = version + 1;`;

/** The channel of a user_messages row's message (0 once the message is gone: the whole user then). */
const channelOf = (row: string) => `coalesce((SELECT stream_id FROM messages WHERE id = ${row}.message_id), 0)`;

export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  // PostgreSQL computes unread_msgs afresh each time (no cache), so it needs no counters.
  if (dialect !== 'sqlite') return;
  // Per user and channel: a channel row's read bit changed, or an unread channel row was deleted, so
  // that reading one channel leaves what is kept of the others usable.
  await sql`CREATE TABLE unread_versions (user_id INTEGER NOT NULL, stream_id INTEGER NOT NULL, version INTEGER NOT NULL, PRIMARY KEY (user_id, stream_id)) WITHOUT ROWID`.execute(db);
  // Per organization: a message changed channel or topic, or was deleted (rare next to sends and reads).
  await sql`CREATE TABLE message_versions (realm_id INTEGER PRIMARY KEY, version INTEGER NOT NULL)`.execute(db);
  // Triggers, so that no write path (actions, import, a bulk loader) can change them without it. A new
  // message needs none: the cache reads the messages past the newest ID it has seen. Direct messages
  // (bit 256) are not in the cache, so their reads raise nothing.
  const triggers: [name: string, spec: string, body: string][] = [
    [
      'user_messages_read_version',
      'AFTER UPDATE OF flags ON user_messages FOR EACH ROW WHEN (OLD.flags & 1) <> (NEW.flags & 1) AND (NEW.flags & 256) = 0',
      bump('unread_versions', { user_id: 'NEW.user_id', stream_id: channelOf('NEW') }),
    ],
    ['user_messages_delete_version', 'AFTER DELETE ON user_messages FOR EACH ROW WHEN (OLD.flags & 257) = 0', bump('unread_versions', { user_id: 'OLD.user_id', stream_id: channelOf('OLD') })],
    ['messages_move_version', 'AFTER UPDATE OF topic, recipient_id, stream_id ON messages FOR EACH ROW', bump('message_versions', { realm_id: 'NEW.realm_id' })],
    ['messages_delete_version', 'AFTER DELETE ON messages FOR EACH ROW', bump('message_versions', { realm_id: 'OLD.realm_id' })],
  ];
  for (const [name, spec, body] of triggers) await sql.raw(`CREATE TRIGGER ${name} ${spec} BEGIN ${body} END`).execute(db);
}
