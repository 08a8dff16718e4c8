// Delivers due reminders: polls the database every second on every node (claims keep them apart).
import type { AppContext } from '../context.js';
import { deliverDueReminders } from '../actions/reminders.js';

export const REMINDER_POLL_MS = 1000;

export interface Worker {
  stop(): Promise<void>;
}

export function startReminderWorker(app: AppContext, log: (msg: string) => void, intervalMs = REMINDER_POLL_MS): Worker {
  let running: Promise<void> | null = null;
  let stopped = false;
  const tick = () => {
    if (running || stopped) return;
    running = (async () => {
      try {
        // Drain in batches so a backlog after downtime goes out at once, not 50 a second.
        while (!stopped && (await deliverDueReminders(app)) > 0);
      } catch (err) {
        log(`reminder worker: ${err instanceof Error ? err.stack : String(err)}`);
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
