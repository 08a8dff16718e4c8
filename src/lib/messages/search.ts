// Full-text search on both databases: FTS5 rows on SQLite (rowid = message ID); on PostgreSQL an
// expression index over topic and content, so there is nothing to maintain.
import { sql, type RawBuilder, type SqlBool } from 'kysely';
import type { Tx } from '../../store/store.js';
import type { Dialect } from '../../store/dialect.js';

/** Each word becomes a quoted FTS5 string, so no user input is read as query syntax. */
export function fts5Query(text: string): string {
  return text
    .split(/\s+/)
    .filter(Boolean)
    .map((w) => '"' + w.replace(/"/g, '""') + '"')
    .join(' ');
}

/** A condition on messages aliased `m` matching the search words. */
export function searchCondition(dialect: Dialect, text: string): RawBuilder<SqlBool> {
  if (!text.trim()) return sql<SqlBool>`1 = 1`;
  if (dialect === 'sqlite') return sql<SqlBool>`m.id IN (SELECT rowid FROM message_search WHERE message_search MATCH ${fts5Query(text)})`;
  // Same expression as the messages_search index, so the planner can use it.
  return sql<SqlBool>`to_tsvector('simple', m.topic || ' ' || m.content) @@ plainto_tsquery('simple', ${text})`;
}

/** (Re)builds the search rows of these messages from their stored topic and content, in one statement. */
export async function indexMessages(tx: Tx, dialect: Dialect, ids: number[]): Promise<void> {
  if (dialect !== 'sqlite' || !ids.length) return;
  await unindexMessages(tx, dialect, ids);
  await sql`INSERT INTO message_search (rowid, topic, content) SELECT id, topic, content FROM messages WHERE id IN (${sql.join(ids)})`.execute(tx);
}

export async function unindexMessages(tx: Tx, dialect: Dialect, ids: number[]): Promise<void> {
  if (dialect !== 'sqlite' || !ids.length) return;
  await sql`DELETE FROM message_search WHERE rowid IN (${sql.join(ids)})`.execute(tx);
}

/**
 * Indexes a message just inserted (nothing to remove first), in the sending write. Indexing a
 * group commit's messages together before COMMIT instead (FTS5 writes an index segment at each
 * savepoint RELEASE) saved about 10 % of a send's CPU but raised the p99 latency of sends at
 * 500/s from about 17 to about 24 ms in the benchmark (docs/performance.md).
 */
export async function indexNewMessage(tx: Tx, dialect: Dialect, id: number): Promise<void> {
  if (dialect !== 'sqlite') return;
  await sql`INSERT INTO message_search (rowid, topic, content) SELECT id, topic, content FROM messages WHERE id = ${id}`.execute(tx);
}
