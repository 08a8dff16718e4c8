// Reminders: GET and POST /reminders, DELETE /reminders/{reminder_id}.
import type { RouteList } from '../http/router.js';
import { authed } from '../http/handlers.js';
import { doCreateReminder, doDeleteReminder } from '../actions/reminders.js';
import { userReminders } from '../lib/reminders.js';

const list = authed(async (req) => ({ reminders: await req.app.store.read((tx) => userReminders(tx, req.user.id)) }));

// message_id and scheduled_delivery_timestamp are required (a reminder without either means nothing); note defaults to "".
const create = authed(async (req) => {
  const p = req.params;
  const messageId = p.reqInt('message_id');
  const scheduledAt = p.reqInt('scheduled_delivery_timestamp');
  const note = p.str('note') ?? '';
  return { reminder_id: await doCreateReminder(req.app, req.realm, req.user, { messageId, scheduledAt, note }) };
});

const remove = authed(async (req) => {
  await doDeleteReminder(req.app, req.realm, req.user, Number(req.pathParams.reminder_id));
  return {};
});

export const routes: RouteList = [
  ['reminders', { GET: list, POST: create }],
  ['reminders/{reminder_id:int}', { DELETE: remove }],
];
