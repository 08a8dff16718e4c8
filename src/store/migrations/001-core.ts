// First schema: organizations, people, channels, messages, reactions and user groups, for SQLite and PostgreSQL.
import { sql, type Kysely, type CreateTableBuilder } from 'kysely';
import type { Dialect } from '../dialect.js';

type Table = CreateTableBuilder<string, never>;

/** An auto-incrementing integer primary key in the dialect's own form. */
function withId(t: Table, dialect: Dialect): Table {
  return dialect === 'postgres'
    ? t.addColumn('id', 'serial', (c) => c.primaryKey())
    : t.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement());
}

export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  const table = (name: string) => withId(db.schema.createTable(name) as unknown as Table, dialect);

  await table('realms')
    .addColumn('string_id', 'text', (c) => c.notNull().unique())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('date_created', 'integer', (c) => c.notNull())
    .addColumn('deactivated', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('settings', 'text', (c) => c.notNull().defaultTo('{}'))
    .execute();

  await table('users')
    .addColumn('realm_id', 'integer', (c) => c.notNull().references('realms.id'))
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('delivery_email', 'text', (c) => c.notNull())
    .addColumn('email_key', 'text', (c) => c.notNull())
    .addColumn('full_name', 'text', (c) => c.notNull())
    .addColumn('password_hash', 'text')
    .addColumn('api_key', 'text', (c) => c.notNull().unique())
    .addColumn('role', 'integer', (c) => c.notNull())
    .addColumn('is_active', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('is_bot', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('bot_type', 'integer')
    .addColumn('bot_owner_id', 'integer')
    .addColumn('date_joined', 'integer', (c) => c.notNull())
    .addColumn('timezone', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('avatar_source', 'text', (c) => c.notNull().defaultTo('G'))
    .addColumn('avatar_version', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('is_imported_stub', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('is_deleted', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('settings', 'text', (c) => c.notNull().defaultTo('{}'))
    .execute();
  await db.schema.createIndex('users_realm_email').on('users').columns(['realm_id', 'email_key']).unique().execute();

  await table('recipients')
    .addColumn('type', 'integer', (c) => c.notNull())
    .addColumn('type_id', 'integer', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('recipients_type').on('recipients').columns(['type', 'type_id']).unique().execute();

  await table('direct_message_groups')
    .addColumn('realm_id', 'integer', (c) => c.notNull())
    .addColumn('user_ids_key', 'text', (c) => c.notNull())
    .addColumn('recipient_id', 'integer', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('dm_groups_key').on('direct_message_groups').columns(['realm_id', 'user_ids_key']).unique().execute();

  await table('streams')
    .addColumn('realm_id', 'integer', (c) => c.notNull().references('realms.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('name_key', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('rendered_description', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('invite_only', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('history_public_to_subscribers', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('is_web_public', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('is_archived', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('date_created', 'integer', (c) => c.notNull())
    .addColumn('creator_id', 'integer')
    .addColumn('recipient_id', 'integer', (c) => c.notNull())
    .addColumn('first_message_id', 'integer')
    .addColumn('message_retention_days', 'integer')
    .addColumn('topics_policy', 'text', (c) => c.notNull().defaultTo('inherit'))
    .addColumn('folder_id', 'integer')
    .addColumn('permissions', 'text', (c) => c.notNull().defaultTo('{}'))
    .execute();
  await db.schema.createIndex('streams_realm_name').on('streams').columns(['realm_id', 'name_key']).unique().execute();

  await table('subscriptions')
    .addColumn('user_id', 'integer', (c) => c.notNull())
    .addColumn('stream_id', 'integer', (c) => c.notNull())
    .addColumn('active', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('is_muted', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('pin_to_top', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('color', 'text', (c) => c.notNull())
    .addColumn('desktop_notifications', 'integer')
    .addColumn('email_notifications', 'integer')
    .addColumn('push_notifications', 'integer')
    .addColumn('audible_notifications', 'integer')
    .addColumn('wildcard_mentions_notify', 'integer')
    .execute();
  await db.schema.createIndex('subscriptions_user_stream').on('subscriptions').columns(['user_id', 'stream_id']).unique().execute();
  await db.schema.createIndex('subscriptions_stream').on('subscriptions').columns(['stream_id', 'active', 'user_id']).execute();

  await table('messages')
    .addColumn('realm_id', 'integer', (c) => c.notNull())
    .addColumn('type', 'integer', (c) => c.notNull())
    .addColumn('recipient_id', 'integer', (c) => c.notNull())
    .addColumn('stream_id', 'integer')
    .addColumn('sender_id', 'integer', (c) => c.notNull())
    .addColumn('topic', 'text', (c) => c.notNull())
    .addColumn('topic_key', 'text', (c) => c.notNull())
    .addColumn('content', 'text', (c) => c.notNull())
    .addColumn('rendered_content', 'text', (c) => c.notNull())
    .addColumn('date_sent', 'integer', (c) => c.notNull())
    .addColumn('sending_client', 'text', (c) => c.notNull())
    .addColumn('last_edit_time', 'integer')
    .addColumn('last_moved_time', 'integer')
    .addColumn('edit_history', 'text')
    .addColumn('is_me_message', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('has_link', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('has_image', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('has_attachment', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.createIndex('messages_recipient_topic').on('messages').columns(['recipient_id', 'topic_key', 'id']).execute();
  await db.schema.createIndex('messages_recipient').on('messages').columns(['recipient_id', 'id']).execute();
  await db.schema.createIndex('messages_sender').on('messages').columns(['sender_id', 'id']).execute();
  await db.schema.createIndex('messages_realm').on('messages').columns(['realm_id', 'id']).execute();

  await db.schema
    .createTable('user_messages')
    .addColumn('user_id', 'integer', (c) => c.notNull())
    .addColumn('message_id', 'integer', (c) => c.notNull())
    .addColumn('flags', 'integer', (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('user_messages_pk', ['user_id', 'message_id'])
    .execute();
  await db.schema.createIndex('user_messages_message').on('user_messages').column('message_id').execute();
  // Partial indexes keep unread, starred, mention and direct-message lookups proportional to their own size.
  await sql`CREATE INDEX user_messages_unread ON user_messages (user_id, message_id) WHERE (flags & 1) = 0`.execute(db);
  await sql`CREATE INDEX user_messages_starred ON user_messages (user_id, message_id) WHERE (flags & 2) <> 0`.execute(db);
  await sql`CREATE INDEX user_messages_mentioned ON user_messages (user_id, message_id) WHERE (flags & 56) <> 0`.execute(db);
  await sql`CREATE INDEX user_messages_private ON user_messages (user_id, message_id) WHERE (flags & 256) <> 0`.execute(db);

  await table('reactions')
    .addColumn('message_id', 'integer', (c) => c.notNull())
    .addColumn('user_id', 'integer', (c) => c.notNull())
    .addColumn('emoji_name', 'text', (c) => c.notNull())
    .addColumn('emoji_code', 'text', (c) => c.notNull())
    .addColumn('reaction_type', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('reactions_unique').on('reactions').columns(['message_id', 'user_id', 'reaction_type', 'emoji_code']).unique().execute();

  await table('user_groups')
    .addColumn('realm_id', 'integer', (c) => c.notNull())
    .addColumn('name', 'text')
    .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('is_system_group', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('deactivated', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('date_created', 'integer')
    .addColumn('creator_id', 'integer')
    .addColumn('permissions', 'text', (c) => c.notNull().defaultTo('{}'))
    .execute();
  await db.schema.createIndex('user_groups_realm').on('user_groups').columns(['realm_id', 'name']).execute();

  await db.schema
    .createTable('user_group_members')
    .addColumn('group_id', 'integer', (c) => c.notNull())
    .addColumn('user_id', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('user_group_members_pk', ['group_id', 'user_id'])
    .execute();
  await db.schema.createIndex('user_group_members_user').on('user_group_members').column('user_id').execute();
  await db.schema
    .createTable('user_group_subgroups')
    .addColumn('group_id', 'integer', (c) => c.notNull())
    .addColumn('subgroup_id', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('user_group_subgroups_pk', ['group_id', 'subgroup_id'])
    .execute();

  await upDefaultStreams(db);

  if (dialect === 'sqlite') {
    await sql`CREATE VIRTUAL TABLE message_search USING fts5(topic, content, tokenize = 'unicode61 remove_diacritics 2')`.execute(db);
  } else {
    await sql`CREATE INDEX messages_search ON messages USING gin (to_tsvector('simple', topic || ' ' || content))`.execute(db);
  }
}

/** Channels every new member of the organization is subscribed to. */
export async function upDefaultStreams(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('default_streams')
    .addColumn('realm_id', 'integer', (c) => c.notNull())
    .addColumn('stream_id', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('default_streams_pk', ['realm_id', 'stream_id'])
    .execute();
}
