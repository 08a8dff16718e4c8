// Reminders: scheduling, cancelling, and delivery by the notification bot exactly once.
import type { AppContext } from '../context.js';
import type { Realm, User } from '../store/schema.js';
import { ApiError, badRequest } from '../core/api-error.js';
import { writeWithEvents, to } from '../events/publish.js';
import { accessMessage } from '../lib/messages/access.js';
import { idsFromKey } from '../lib/messages/recipients.js';
import { loadRenderContext, renderMessage } from '../lib/markdown/index.js';
import { renderOptionsFor } from '../lib/markdown/render-options.js';
import { presentReminder, reminderContent } from '../lib/reminders.js';
import { deliverDueRows } from './due-rows.js';
import { doSendMessage } from './messages-send.js';
import { notificationBot } from './system-bots.js';

export const MAX_REMINDER_NOTE_LENGTH = 1000;
export interface NewReminder {
  messageId: number;
  scheduledAt: number;
  note: string;
}

export async function doCreateReminder(app: AppContext, realm: Realm, user: User, input: NewReminder): Promise<number> {
  if (input.note.includes('\u0000')) throw badRequest('Note must not contain null bytes');
  if ([...input.note].length > MAX_REMINDER_NOTE_LENGTH) throw badRequest(`Note too long (limit: ${MAX_REMINDER_NOTE_LENGTH} characters)`);
  const now = app.clock.now();
  if (input.scheduledAt <= now) throw badRequest('Scheduled delivery time must be in the future.');
  const { message, stream } = await app.store.read((tx) => accessMessage(tx, user, input.messageId));
  let dmIds: number[] = [];
  if (!stream) {
    const group = await app.store.db.selectFrom('direct_message_groups').select('user_ids_key').where('recipient_id', '=', message.recipient_id).executeTakeFirst();
    dmIds = idsFromKey(group?.user_ids_key ?? '').filter((id) => id !== user.id);
  }
  const content = reminderContent(message, stream, dmIds.length ? dmIds : [user.id], input.note);
  const rendered = renderMessage(content, await loadRenderContext(app.store.db, realm.id, content, await renderOptionsFor(app, realm, user)));
  const { result } = await writeWithEvents(app, realm.id, async (tx) => {
    const row = await tx
      .insertInto('reminders')
      .values({ realm_id: realm.id, user_id: user.id, message_id: message.id, note: input.note, content, rendered_content: rendered.html, scheduled_at: input.scheduledAt, created_at: now, claimed_until: null })
      .returningAll()
      .executeTakeFirstOrThrow();
    return row;
  }, (result) => [to([user.id], { type: 'reminders', op: 'add', reminders: [presentReminder(result)] })]);
  return result.id;
}

export async function doDeleteReminder(app: AppContext, realm: Realm, user: User, reminderId: number): Promise<void> {
  await writeWithEvents(app, realm.id, async (tx) => {
    const r = await tx.deleteFrom('reminders').where('id', '=', reminderId).where('user_id', '=', user.id).executeTakeFirst();
    if (Number(r.numDeletedRows) !== 1) throw new ApiError('Reminder does not exist', 'BAD_REQUEST', 404);
  }, () => [to([user.id], { type: 'reminders', op: 'remove', reminder_id: reminderId })]);
}

class AlreadyDelivered extends Error {}

/** Claims due reminders and delivers each (see deliverDueRows). Returns how many were sent. */
export async function deliverDueReminders(app: AppContext, limit = 50): Promise<number> {
  return deliverDueRows(app, 'reminders', (id) => deliverOne(app, id), limit);
}

async function deliverOne(app: AppContext, id: number): Promise<boolean> {
  const row = await app.store.db.selectFrom('reminders').selectAll().where('id', '=', id).executeTakeFirst();
  if (!row) return false;
  const realm = await app.store.db.selectFrom('realms').selectAll().where('id', '=', row.realm_id).executeTakeFirstOrThrow();
  const user = await app.store.db.selectFrom('users').selectAll().where('id', '=', row.user_id).executeTakeFirstOrThrow();
  try {
    if (!user.is_active || realm.deactivated) throw new Error('recipient deactivated');
    const bot = await notificationBot(app, realm);
    await doSendMessage(app, realm, bot, {
      kind: 'private',
      dmTo: [user.id],
      content: row.content,
      readBySender: true,
      clientName: 'Internal',
      beforeInsert: async (tx) => {
        const del = await tx.deleteFrom('reminders').where('id', '=', id).executeTakeFirst();
        if (Number(del.numDeletedRows) !== 1) throw new AlreadyDelivered();
        return [to([user.id], { type: 'reminders', op: 'remove', reminder_id: id })];
      },
    });
    return true;
  } catch (err) {
    if (err instanceof AlreadyDelivered) return false;
    // Retrying cannot help (deactivated recipient, unsendable content): keep it, marked failed, for the user to see.
    await app.store.write((tx) => tx.updateTable('reminders').set({ failed: 1 }).where('id', '=', id).execute());
    return false;
  }
}
