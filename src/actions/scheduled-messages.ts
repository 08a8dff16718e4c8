// Scheduled messages: create, edit, delete, and delivery as their sender exactly once (or marked failed).
import type { AppContext } from '../context.js';
import type { Realm, ScheduledMessage, User } from '../store/schema.js';
import { ApiError, badRequest } from '../core/api-error.js';
import { writeWithEvents, to } from '../events/publish.js';
import { loadRenderContext, renderMessage } from '../lib/markdown/index.js';
import { renderOptionsFor } from '../lib/markdown/render-options.js';
import { normalizeContent } from '../lib/messages/content.js';
import { checkScheduledTarget, ownScheduledMessage, presentScheduledMessage, scheduledMessageMissing, type ScheduledTarget } from '../lib/scheduled-messages.js';
import { deliverDueRows } from './due-rows.js';
import { doSendMessage } from './messages-send.js';
import { notificationBot } from './system-bots.js';

const pastTime = () => badRequest('Scheduled delivery time must be in the future.');

export interface NewScheduledMessage extends ScheduledTarget {
  content: string;
  scheduledAt: number;
  readBySender?: boolean;
}

async function render(app: AppContext, realm: Realm, user: User, content: string): Promise<string> {
  return renderMessage(content, await loadRenderContext(app.store.db, realm.id, content, await renderOptionsFor(app, realm, user))).html;
}

export async function doCreateScheduledMessage(app: AppContext, realm: Realm, user: User, input: NewScheduledMessage): Promise<number> {
  const content = normalizeContent(input.content);
  if (input.scheduledAt <= app.clock.now()) throw pastTime();
  const rendered = await render(app, realm, user, content);
  const { result } = await writeWithEvents(app, realm.id, async (tx) => {
    const target = await checkScheduledTarget(tx, realm, user, input);
    return tx
      .insertInto('scheduled_messages')
      .values({
        realm_id: realm.id,
        user_id: user.id,
        kind: target.kind,
        stream_id: target.stream?.id ?? null,
        to_user_ids: target.userIds ? JSON.stringify(target.userIds) : null,
        topic: target.topic,
        content,
        rendered_content: rendered,
        scheduled_at: input.scheduledAt,
        read_by_sender: input.readBySender === undefined ? null : Number(input.readBySender),
        created_at: app.clock.now(),
        claimed_until: null,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
  }, (result) => [to([user.id], { type: 'scheduled_messages', op: 'add', scheduled_messages: [presentScheduledMessage(result)] })]);
  return result.id;
}

export interface ScheduledMessageEdit {
  kind?: 'stream' | 'private';
  to?: number | number[];
  topic?: string;
  content?: string;
  scheduledAt?: number;
}

export async function doEditScheduledMessage(app: AppContext, realm: Realm, user: User, id: number, edit: ScheduledMessageEdit): Promise<void> {
  const content = edit.content === undefined ? undefined : normalizeContent(edit.content);
  const rendered = content === undefined ? undefined : await render(app, realm, user, content);
  await writeWithEvents(app, realm.id, async (tx) => {
    const row = await ownScheduledMessage(tx, user, id);
    if (edit.kind !== undefined) {
      if (edit.to === undefined) throw badRequest('Recipient required when updating type of scheduled message.');
      if (edit.kind === 'stream' && edit.topic === undefined) throw badRequest('Topic required when updating type of scheduled message to channel.');
    }
    // A failed message is sent again only at a new time the user picks.
    if (row.failed === 1 && edit.scheduledAt === undefined) throw pastTime();
    if (edit.scheduledAt !== undefined && edit.scheduledAt <= app.clock.now()) throw pastTime();
    const kind = edit.kind ?? (row.kind as 'stream' | 'private');
    const sameKind = kind === row.kind;
    const target = await checkScheduledTarget(tx, realm, user, {
      kind,
      to: edit.to ?? (row.kind === 'stream' ? row.stream_id! : (JSON.parse(row.to_user_ids ?? '[]') as number[])),
      topic: edit.topic ?? (sameKind ? row.topic : undefined),
    });
    const updated = await tx
      .updateTable('scheduled_messages')
      .set({
        kind: target.kind,
        stream_id: target.stream?.id ?? null,
        to_user_ids: target.userIds ? JSON.stringify(target.userIds) : null,
        topic: target.topic,
        ...(content !== undefined ? { content, rendered_content: rendered! } : {}),
        ...(edit.scheduledAt !== undefined ? { scheduled_at: edit.scheduledAt } : {}),
        failed: 0,
        failure_message: null,
        claimed_until: null,
      })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirst();
    // Delivered (and so deleted) by a worker since the ownership check: gone, as for any missing one.
    if (!updated) throw scheduledMessageMissing();
    return updated;
  }, (result) => [to([user.id], { type: 'scheduled_messages', op: 'update', scheduled_message: presentScheduledMessage(result) })]);
}

export async function doDeleteScheduledMessage(app: AppContext, realm: Realm, user: User, id: number): Promise<void> {
  await writeWithEvents(app, realm.id, async (tx) => {
    await ownScheduledMessage(tx, user, id);
    await tx.deleteFrom('scheduled_messages').where('id', '=', id).execute();
  }, () => [to([user.id], { type: 'scheduled_messages', op: 'remove', scheduled_message_id: id })]);
}

class AlreadyDelivered extends Error {}

/** Claims due scheduled messages and sends each (see deliverDueRows). Returns how many were sent. */
export async function deliverDueScheduledMessages(app: AppContext, limit = 50): Promise<number> {
  return deliverDueRows(app, 'scheduled_messages', (id) => deliverOne(app, id), limit);
}

async function deliverOne(app: AppContext, id: number): Promise<boolean> {
  const row = await app.store.db.selectFrom('scheduled_messages').selectAll().where('id', '=', id).executeTakeFirst();
  if (!row) return false;
  const realm = await app.store.db.selectFrom('realms').selectAll().where('id', '=', row.realm_id).executeTakeFirstOrThrow();
  const user = await app.store.db.selectFrom('users').selectAll().where('id', '=', row.user_id).executeTakeFirstOrThrow();
  try {
    if (!user.is_active || realm.deactivated) throw new ApiError('Account is deactivated.', 'BAD_REQUEST', 400);
    await doSendMessage(app, realm, user, {
      kind: row.kind === 'stream' ? 'stream' : 'private',
      stream: row.stream_id ?? undefined,
      dmTo: row.kind === 'stream' ? undefined : (JSON.parse(row.to_user_ids ?? '[]') as number[]),
      topic: row.topic,
      content: row.content,
      readBySender: row.read_by_sender === null ? true : row.read_by_sender === 1,
      clientName: 'Parley scheduled messages',
      beforeInsert: async (tx) => {
        // Edited after the claim (new time or content): leave it for the next round.
        const del = await tx.deleteFrom('scheduled_messages').where('id', '=', id).where('scheduled_at', '=', row.scheduled_at).where('content', '=', row.content).executeTakeFirst();
        if (Number(del.numDeletedRows) !== 1) throw new AlreadyDelivered();
        return [to([user.id], { type: 'scheduled_messages', op: 'remove', scheduled_message_id: id })];
      },
    });
    return true;
  } catch (err) {
    if (err instanceof AlreadyDelivered) return false;
    await markFailed(app, realm, user, row, err instanceof ApiError ? err.message : 'Internal server error');
    return false;
  }
}

/** Retrying cannot help (the channel or a recipient changed, the sender left): keep it, failed, and tell the sender. */
async function markFailed(app: AppContext, realm: Realm, user: User, row: ScheduledMessage, reason: string): Promise<void> {
  const { result } = await writeWithEvents(
    app,
    realm.id,
    (tx) => tx.updateTable('scheduled_messages').set({ failed: 1, failure_message: reason, claimed_until: null }).where('id', '=', row.id).where('scheduled_at', '=', row.scheduled_at).returningAll().executeTakeFirst(),
    (updated) => (updated ? [to([user.id], { type: 'scheduled_messages', op: 'update', scheduled_message: presentScheduledMessage(updated) })] : []),
  );
  if (!result) return;
  if (!user.is_active || realm.deactivated) return;
  const when = new Date(row.scheduled_at * 1000).toISOString().replace('T', ' ').replace(/:\d\d\.\d+Z$/, ' UTC');
  const bot = await notificationBot(app, realm);
  await doSendMessage(app, realm, bot, {
    kind: 'private',
    dmTo: [user.id],
    content: `The message you scheduled for ${when} was not sent because of the following error:\n\`\`\`\n${reason}\n\`\`\`\n\n[View scheduled messages](#scheduled)`,
    readBySender: true,
    clientName: 'Internal',
  });
}
