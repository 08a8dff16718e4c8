// Delivers due reminders: polls the database every second on every node (claims keep them apart).
import type { AppContext } from '../context.js';
import { deliverDueReminders } from '../actions/reminders.js';
import { startPollingWorker, type PollingWorker } from './polling-worker.js';

export type { Worker } from './polling-worker.js';

export const REMINDER_POLL_MS = 1000;

export function startReminderWorker(app: AppContext, log: (msg: string) => void, intervalMs = REMINDER_POLL_MS): PollingWorker {
  // Drain in batches so a backlog after downtime goes out at once, not 50 a second.
  return startPollingWorker('reminder worker', async (stopped) => { while (!stopped() && (await deliverDueReminders(app)) > 0); }, log, intervalMs);
}
