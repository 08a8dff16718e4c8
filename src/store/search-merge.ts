// Merges the SQLite search index's segments in small steps, on the checkpoint worker's connection:
// FTS5's own merges (inside each indexing insert) took up to about 20 ms of the main thread.
import type Database from 'better-sqlite3';

/**
 * Pages one step writes at most. A step holds the write lock; a writer on the main thread waits
 * for it without blocking (store.ts), so steps stay short: a few milliseconds on a million messages.
 */
export const PAGES_PER_STEP = 16;

export interface SearchMerger {
  /** One merge step; true when it did some work (more may remain). */
  step(): boolean;
}

/** A merger on this connection, or null when the database has no search index (PostgreSQL's is an expression index). */
export function searchMerger(db: Database.Database): SearchMerger | null {
  const exists = db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'message_search'`).get();
  if (!exists) return null;
  // Positive: only levels holding at least 'usermerge' (4) segments are merged, as automerge did.
  const merge = db.prepare(`INSERT INTO message_search (message_search, rank) VALUES ('merge', ${PAGES_PER_STEP})`);
  // FTS5 reports a merge's work only through the connection's change counter: the command itself
  // counts as its one change, each index page written as another.
  const changes = db.prepare('SELECT total_changes()').pluck();
  return {
    step() {
      const before = changes.get() as number;
      const own = merge.run().changes;
      return (changes.get() as number) - before > own;
    },
  };
}
