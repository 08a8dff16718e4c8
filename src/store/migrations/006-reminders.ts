// Reminders, presence, custom emoji, linkifiers, and the per-organization system bots that deliver reminders.
import type { Kysely } from 'kysely';
import type { Dialect } from '../dialect.js';

export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  const id = (t: string) =>
    db.schema.createTable(t).addColumn('id', dialect === 'postgres' ? 'serial' : 'integer', (c) => (dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement()));

  // A reminder row exists until it is delivered: the delivering transaction deletes it together
  // with inserting the message, which is what makes delivery happen exactly once.
  await id('reminders')
    .addColumn('realm_id', 'integer', (c) => c.notNull().references('realms.id'))
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id'))
    .addColumn('message_id', 'integer', (c) => c.notNull())
    .addColumn('note', 'text', (c) => c.notNull())
    .addColumn('content', 'text', (c) => c.notNull())
    .addColumn('rendered_content', 'text', (c) => c.notNull())
    .addColumn('scheduled_at', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .addColumn('failed', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('claimed_until', 'integer')
    .execute();
  await db.schema.createIndex('reminders_due').on('reminders').columns(['failed', 'scheduled_at']).execute();
  await db.schema.createIndex('reminders_user').on('reminders').columns(['user_id', 'scheduled_at']).execute();

  await db.schema
    .createTable('realm_system_bots')
    .addColumn('realm_id', 'integer', (c) => c.notNull().references('realms.id'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id'))
    .addPrimaryKeyConstraint('realm_system_bots_pk', ['realm_id', 'kind'])
    .execute();

  await db.schema
    .createTable('user_presence')
    .addColumn('user_id', 'integer', (c) => c.primaryKey().references('users.id'))
    .addColumn('realm_id', 'integer', (c) => c.notNull().references('realms.id'))
    .addColumn('last_connected_time', 'integer', (c) => c.notNull())
    .addColumn('last_active_time', 'integer')
    .addColumn('last_update_id', 'integer', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('user_presence_realm_update').on('user_presence').columns(['realm_id', 'last_update_id']).execute();
  await db.schema.createIndex('user_presence_realm_time').on('user_presence').columns(['realm_id', 'last_connected_time']).execute();
  // One counter row per organization; updating it serializes concurrent presence writers.
  await db.schema
    .createTable('presence_sequences')
    .addColumn('realm_id', 'integer', (c) => c.primaryKey().references('realms.id'))
    .addColumn('last_update_id', 'integer', (c) => c.notNull())
    .execute();

  await id('realm_emoji')
    .addColumn('realm_id', 'integer', (c) => c.notNull().references('realms.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('file_name', 'text', (c) => c.notNull())
    .addColumn('is_animated', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('author_id', 'integer')
    .addColumn('deactivated', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.createIndex('realm_emoji_realm_name').on('realm_emoji').columns(['realm_id', 'name']).execute();

  await id('realm_linkifiers')
    .addColumn('realm_id', 'integer', (c) => c.notNull().references('realms.id'))
    .addColumn('pattern', 'text', (c) => c.notNull())
    .addColumn('url_template', 'text', (c) => c.notNull())
    .addColumn('example_input', 'text')
    .addColumn('reverse_template', 'text')
    .addColumn('alternative_url_templates', 'text', (c) => c.notNull())
    .addColumn('sort_order', 'integer', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('realm_linkifiers_realm_pattern').on('realm_linkifiers').columns(['realm_id', 'pattern']).unique().execute();
}
