// Sends due missed-message emails every second and digests once a minute, on every node (claims keep them apart).
import type { AppContext } from '../context.js';
import { deliverDueEmails } from '../actions/email-notifications.js';
import { deliverDueDigests } from '../actions/email-digest.js';
import { startPollingWorker, type PollingWorker } from './polling-worker.js';

export const EMAIL_POLL_MS = 1000;
/** Digests are due on a day, not a second: looked for once a minute (by the app's clock). */
export const DIGEST_CHECK_SECS = 60;

export function startEmailWorker(app: AppContext, log: (msg: string) => void, intervalMs = EMAIL_POLL_MS): PollingWorker {
  let lastDigestCheck = -Infinity;
  return startPollingWorker(
    'email worker',
    async (stopped) => {
      // Drain in batches so a backlog after downtime goes out at once.
      while (!stopped() && (await deliverDueEmails(app)) > 0);
      if (!stopped() && app.clock.now() - lastDigestCheck >= DIGEST_CHECK_SECS) {
        lastDigestCheck = app.clock.now();
        await deliverDueDigests(app);
      }
    },
    log,
    intervalMs,
  );
}
