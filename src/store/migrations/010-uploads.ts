// Uploaded files (attachments) and the messages that link them, which decide who may fetch a file.
import type { Kysely } from 'kysely';
import type { Dialect } from '../dialect.js';

export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('attachments')
    .addColumn('id', dialect === 'postgres' ? 'serial' : 'integer', (c) => (dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement()))
    .addColumn('realm_id', 'integer', (c) => c.notNull().references('realms.id'))
    .addColumn('owner_id', 'integer', (c) => c.notNull().references('users.id'))
    // "{realm_id}/{xx}/{random}/{file name}": the URL path after /user_uploads/ and the storage key.
    .addColumn('path_id', 'text', (c) => c.notNull().unique())
    .addColumn('file_name', 'text', (c) => c.notNull())
    .addColumn('size', 'integer', (c) => c.notNull())
    .addColumn('content_type', 'text', (c) => c.notNull())
    .addColumn('create_time', 'integer', (c) => c.notNull())
    // Per-file HMAC key for temporary URLs: stored in the database, so every node can check them.
    .addColumn('url_secret', 'text', (c) => c.notNull())
    .execute();
  // The quota sums an organization's sizes.
  await db.schema.createIndex('attachments_realm').on('attachments').columns(['realm_id']).execute();
  await db.schema
    .createTable('attachment_messages')
    .addColumn('attachment_id', 'integer', (c) => c.notNull().references('attachments.id'))
    // No foreign key: message deletion (three actions) need not know about links; every read joins messages.
    .addColumn('message_id', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('attachment_messages_pk', ['attachment_id', 'message_id'])
    .execute();
  // Finding a message's links (edits, and a later cleanup of links to deleted messages).
  await db.schema.createIndex('attachment_messages_message').on('attachment_messages').columns(['message_id']).execute();
}
