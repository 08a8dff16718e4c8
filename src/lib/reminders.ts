// Reminder rows as the API shows them, and the notification bot's message text for one.
import type { Message, Stream } from '../store/schema.js';
import type { Tx } from '../store/store.js';

export interface ReminderRow {
  id: number;
  user_id: number;
  message_id: number;
  content: string;
  rendered_content: string;
  scheduled_at: number;
  failed: number;
}

export function presentReminder(r: ReminderRow): Record<string, unknown> {
  return {
    reminder_id: r.id,
    type: 'private',
    to: [r.user_id],
    content: r.content,
    rendered_content: r.rendered_content,
    scheduled_delivery_timestamp: r.scheduled_at,
    failed: r.failed === 1,
    reminder_target_message_id: r.message_id,
  };
}

/** Undelivered reminders of a user, soonest first (what GET /reminders and register return). */
export async function userReminders(tx: Tx, userId: number): Promise<Record<string, unknown>[]> {
  const rows = await tx.selectFrom('reminders').selectAll().where('user_id', '=', userId).orderBy('scheduled_at').orderBy('id').execute();
  return rows.map(presentReminder);
}

/**
 * The bot's message: a link to the referenced message (a channel message link, or a narrow to the
 * direct conversation) and the note quoted. Built at creation so the list shows what will be sent.
 */
export function reminderContent(message: Message, stream: Stream | null, dmUserIds: number[], note: string): string {
  const link = stream
    ? `#**${stream.name}>${message.topic}@${message.id}**`
    : `[this direct message](#narrow/dm/${dmUserIds.join(',')}/near/${message.id})`;
  let out = `You asked to be reminded about ${link}.`;
  if (note.trim()) out += `\n\nNote:\n${note.split('\n').map((l) => `> ${l}`).join('\n')}`;
  return out;
}
