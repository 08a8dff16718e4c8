// Full-text search on both databases: FTS5 rows on SQLite (rowid = message ID; new messages are
// indexed by search-indexer.ts); on PostgreSQL an expression index over topic and content.
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

/**
 * Rebuilds the search rows of these messages from their stored topic and content (after an edit or
 * a move). Only rows that exist: a message not indexed yet gets its row from the next batch of the
 * SearchIndexer, which reads the text as stored then.
 */
export async function indexMessages(tx: Tx, dialect: Dialect, ids: number[]): Promise<void> {
  if (dialect !== 'sqlite' || !ids.length) return;
  const indexed = (await sql<{ id: number }>`SELECT rowid AS id FROM message_search WHERE rowid IN (${sql.join(ids)})`.execute(tx)).rows.map((r) => r.id);
  if (!indexed.length) return;
  await unindexMessages(tx, dialect, indexed);
  await sql`INSERT INTO message_search (rowid, topic, content) SELECT id, topic, content FROM messages WHERE id IN (${sql.join(indexed)})`.execute(tx);
}

export async function unindexMessages(tx: Tx, dialect: Dialect, ids: number[]): Promise<void> {
  if (dialect !== 'sqlite' || !ids.length) return;
  await sql`DELETE FROM message_search WHERE rowid IN (${sql.join(ids)})`.execute(tx);
}
