// Sends due missed-message emails every second and digests once a minute, on every node (claims keep them apart).
import type { AppContext } from '../context.js';
import { deliverDueEmails } from '../actions/email-notifications.js';
import { deliverDueDigests } from '../actions/email-digest.js';
import type { Worker } from './reminders.js';

export const EMAIL_POLL_MS = 1000;
/** Digests are due on a day, not a second: looked for once a minute (by the app's clock). */
export const DIGEST_CHECK_SECS = 60;

export function startEmailWorker(app: AppContext, log: (msg: string) => void, intervalMs = EMAIL_POLL_MS): Worker & { runNow(): Promise<void> } {
  let running: Promise<void> | null = null;
  let stopped = false;
  let lastDigestCheck = -Infinity;
  const tick = (): Promise<void> => {
    if (stopped) return Promise.resolve();
    running ??= (async () => {
      try {
        // Drain in batches so a backlog after downtime goes out at once.
        while (!stopped && (await deliverDueEmails(app)) > 0);
        if (!stopped && app.clock.now() - lastDigestCheck >= DIGEST_CHECK_SECS) {
          lastDigestCheck = app.clock.now();
          await deliverDueDigests(app);
        }
      } catch (err) {
        log(`email worker: ${err instanceof Error ? err.stack : String(err)}`);
      } finally {
        running = null;
      }
    })();
    return running;
  };
  const timer = setInterval(() => void tick(), intervalMs);
  timer.unref();
  void tick();
  return {
    runNow: tick,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
