// Full-text search on both databases: FTS5 rows on SQLite (rowid = message ID); on PostgreSQL an
// expression index over topic and content, so there is nothing to maintain.
import { sql, type RawBuilder, type SqlBool } from 'kysely';
import { beforeCommit, type CommitWork, type Tx } from '../../store/store.js';
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
 * New messages of a group commit, indexed together just before COMMIT. FTS5 writes its pending
 * index data out at every savepoint RELEASE: indexed inside each write's savepoint, every message
 * cost an index segment of its own (and the merging of them all later). Each row is read back
 * from messages, so a message deleted meanwhile is skipped, and one edited meanwhile (which indexed
 * its new text itself) is not indexed twice.
 */
const newMessages: CommitWork<number> = {
  async run(tx, ids) {
    await sql`INSERT INTO message_search (rowid, topic, content)
      SELECT m.id, m.topic, m.content FROM messages m
      WHERE m.id IN (${sql.join(ids)}) AND NOT EXISTS (SELECT 1 FROM message_search s WHERE s.rowid = m.id)`.execute(tx);
  },
};

/** Indexes a message just inserted, at the end of the transaction (see newMessages). */
export function indexNewMessage(tx: Tx, dialect: Dialect, id: number): Promise<void> {
  if (dialect !== 'sqlite') return Promise.resolve();
  return beforeCommit(tx, newMessages, id);
}
