// Drafts, saved snippets, navigation views and alert words: small per-user tables, each found by user.
import type { Kysely, CreateTableBuilder } from 'kysely';
import type { Dialect } from '../dialect.js';

type Table = CreateTableBuilder<string, never>;

export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  const table = (name: string): Table => {
    const t = db.schema.createTable(name) as unknown as Table;
    return dialect === 'postgres' ? t.addColumn('id', 'serial', (c) => c.primaryKey()) : t.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement());
  };

  await table('drafts')
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id'))
    .addColumn('type', 'text', (c) => c.notNull())
    // JSON array of channel or user IDs, as the client addressed the draft.
    .addColumn('to_ids', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('topic', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('content', 'text', (c) => c.notNull())
    .addColumn('last_edit_time', 'integer', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('drafts_user').on('drafts').columns(['user_id', 'last_edit_time']).execute();

  await table('saved_snippets')
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id'))
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('content', 'text', (c) => c.notNull())
    .addColumn('date_created', 'integer', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('saved_snippets_user').on('saved_snippets').column('user_id').execute();

  await table('navigation_views')
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id'))
    .addColumn('fragment', 'text', (c) => c.notNull())
    .addColumn('is_pinned', 'integer', (c) => c.notNull())
    .addColumn('name', 'text')
    .execute();
  await db.schema.createIndex('navigation_views_user_fragment').on('navigation_views').columns(['user_id', 'fragment']).unique().execute();

  await table('alert_words')
    .addColumn('realm_id', 'integer', (c) => c.notNull().references('realms.id'))
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id'))
    .addColumn('word', 'text', (c) => c.notNull())
    // Lower-cased word: alert words are case-insensitive, so "Foo" and "foo" are one word.
    .addColumn('word_key', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('alert_words_user_word').on('alert_words').columns(['user_id', 'word_key']).unique().execute();
  // Sending loads a realm's alert words at once (then caches them).
  await db.schema.createIndex('alert_words_realm').on('alert_words').column('realm_id').execute();
}
