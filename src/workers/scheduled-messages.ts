// Delivers due scheduled messages: polls the database every second on every node (claims keep them apart).
import type { AppContext } from '../context.js';
import { deliverDueScheduledMessages } from '../actions/scheduled-messages.js';
import { startPollingWorker, type PollingWorker } from './polling-worker.js';

export const SCHEDULED_POLL_MS = 1000;

export function startScheduledMessageWorker(app: AppContext, log: (msg: string) => void, intervalMs = SCHEDULED_POLL_MS): PollingWorker {
  // Drain in batches so a backlog after downtime goes out at once.
  return startPollingWorker('scheduled message worker', async (stopped) => { while (!stopped() && (await deliverDueScheduledMessages(app)) > 0); }, log, intervalMs);
}
