// User administration: the owners' email-change permission, first-login tracking, custom profile fields.
import type { Kysely } from 'kysely';
import type { Dialect } from '../dialect.js';

export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  // The original's special permission (granted by the operator, never through the API).
  await db.schema.alterTable('users').addColumn('can_change_user_emails', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  // 1 until the first login of an API-created or imported account: date_joined moves to that login.
  await db.schema.alterTable('users').addColumn('first_login_pending', 'integer', (c) => c.notNull().defaultTo(0)).execute();

  await db.schema
    .createTable('custom_profile_fields')
    .addColumn('id', dialect === 'postgres' ? 'serial' : 'integer', (c) => (dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement()))
    .addColumn('realm_id', 'integer', (c) => c.notNull().references('realms.id'))
    .addColumn('type', 'integer', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('hint', 'text', (c) => c.notNull())
    .addColumn('field_data', 'text', (c) => c.notNull())
    .addColumn('field_order', 'integer', (c) => c.notNull())
    .addColumn('display_in_profile_summary', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('required', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('editable_by_user', 'integer', (c) => c.notNull().defaultTo(1))
    .execute();
  await db.schema.createIndex('custom_profile_fields_realm').on('custom_profile_fields').columns(['realm_id', 'field_order']).execute();

  await db.schema
    .createTable('custom_profile_field_values')
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id'))
    .addColumn('field_id', 'integer', (c) => c.notNull().references('custom_profile_fields.id'))
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('rendered_value', 'text')
    .addPrimaryKeyConstraint('custom_profile_field_values_pk', ['user_id', 'field_id'])
    .execute();
  await db.schema.createIndex('custom_profile_field_values_field').on('custom_profile_field_values').columns(['field_id']).execute();
}
