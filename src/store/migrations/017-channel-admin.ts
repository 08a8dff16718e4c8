// Organization administration tables: channel folders, allowed email domains, code playgrounds and
// the defaults new users' settings start from.
import type { ColumnDefinitionBuilder, Kysely } from 'kysely';
import type { Dialect } from '../dialect.js';

export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  const idColumn = dialect === 'postgres' ? 'serial' : 'integer';
  const primary = (c: ColumnDefinitionBuilder) => (dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement());
  await db.schema
    .createTable('channel_folders')
    .addColumn('id', idColumn, primary)
    .addColumn('realm_id', 'integer', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('name_key', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('rendered_description', 'text', (c) => c.notNull())
    .addColumn('order', 'integer', (c) => c.notNull())
    .addColumn('date_created', 'integer', (c) => c.notNull())
    .addColumn('creator_id', 'integer')
    .addColumn('is_archived', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.createIndex('channel_folders_realm_name').on('channel_folders').columns(['realm_id', 'name_key']).unique().execute();

  await db.schema
    .createTable('realm_domains')
    .addColumn('id', idColumn, primary)
    .addColumn('realm_id', 'integer', (c) => c.notNull())
    .addColumn('domain', 'text', (c) => c.notNull())
    .addColumn('allow_subdomains', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.createIndex('realm_domains_realm_domain').on('realm_domains').columns(['realm_id', 'domain']).unique().execute();

  await db.schema
    .createTable('realm_playgrounds')
    .addColumn('id', idColumn, primary)
    .addColumn('realm_id', 'integer', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('pygments_language', 'text', (c) => c.notNull())
    .addColumn('url_template', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('realm_playgrounds_realm_name_lang').on('realm_playgrounds').columns(['realm_id', 'pygments_language', 'name']).unique().execute();

  await db.schema
    .createTable('realm_user_defaults')
    .addColumn('realm_id', 'integer', (c) => c.primaryKey())
    .addColumn('settings', 'text', (c) => c.notNull())
    .execute();
}
