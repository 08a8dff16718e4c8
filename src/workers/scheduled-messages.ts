// Delivers due scheduled messages: polls the database every second on every node (claims keep them apart).
import type { AppContext } from '../context.js';
import { deliverDueScheduledMessages } from '../actions/scheduled-messages.js';
import type { Worker } from './reminders.js';

export const SCHEDULED_POLL_MS = 1000;

export function startScheduledMessageWorker(app: AppContext, log: (msg: string) => void, intervalMs = SCHEDULED_POLL_MS): Worker {
  let running: Promise<void> | null = null;
  let stopped = false;
  const tick = () => {
    if (running || stopped) return;
    running = (async () => {
      try {
        // Drain in batches so a backlog after downtime goes out at once.
        while (!stopped && (await deliverDueScheduledMessages(app)) > 0);
      } catch (err) {
        log(`scheduled message worker: ${err instanceof Error ? err.stack : String(err)}`);
      } finally {
        running = null;
      }
    })();
  };
  const timer = setInterval(tick, intervalMs);
  timer.unref();
  tick();
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      // Finish the delivery in progress before the database closes.
      await running;
    },
  };
}
