// SQLite: the search index no longer merges its segments inside the writes that add to it; the
// checkpoint worker merges them (store/search-merge.ts), so a merge never stalls the event loop.
import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../dialect.js';

export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  if (dialect !== 'sqlite') return;
  // An FTS5 option, kept in the index's own config table. Inserts still merge when a level reaches
  // 'crisismerge' (16) segments, a bound that only an index the worker never reached hits.
  await sql`INSERT INTO message_search (message_search, rank) VALUES ('automerge', 0)`.execute(db);
}
