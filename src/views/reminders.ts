// Reminders: GET and POST /reminders, DELETE /reminders/{reminder_id}.
import type { RouteList } from '../http/router.js';
import { endpoint } from '../http/endpoint.js';
import { ApiError } from '../core/api-error.js';
import { Type, id, int, loose, str } from '../core/param-types.js';
import { doCreateReminder, doDeleteReminder } from '../actions/reminders.js';
import { userReminders } from '../lib/reminders.js';

const Reminder = loose(Type.Object({ reminder_id: Type.Integer(), type: Type.String(), to: Type.Array(Type.Integer()), content: Type.String(), scheduled_delivery_timestamp: Type.Integer() }));

const list = endpoint({
  summary: 'Get reminders',
  response: Type.Object({ reminders: Type.Array(Reminder) }),
  run: async (req) => ({ reminders: await req.app.store.read((tx) => userReminders(tx, req.user.id)) }),
});

// message_id and scheduled_delivery_timestamp are required (a reminder without either means nothing); note defaults to "".
const create = endpoint({
  summary: 'Create a message reminder',
  params: {
    message_id: id({ required: true }),
    scheduled_delivery_timestamp: int({ required: true, description: 'UNIX time in seconds (stored in 32 bits).' }),
    // The action refuses NUL bytes with the original's text.
    note: str({ default: '', allowNul: true }),
  },
  response: Type.Object({ reminder_id: Type.Integer() }),
  run: async (req, a) => ({ reminder_id: await doCreateReminder(req.app, req.realm, req.user, { messageId: a.message_id, scheduledAt: a.scheduled_delivery_timestamp, note: a.note }) }),
});

const remove = endpoint({
  summary: 'Delete a reminder',
  path: { reminder_id: id({ invalid: () => new ApiError('Reminder does not exist', 'BAD_REQUEST', 404) }) },
  response: Type.Object({}),
  run: async (req, a) => {
    await doDeleteReminder(req.app, req.realm, req.user, a.reminder_id);
    return {};
  },
});

export const routes: RouteList = [
  ['reminders', { GET: list, POST: create }],
  ['reminders/{reminder_id:int}', { DELETE: remove }],
];
