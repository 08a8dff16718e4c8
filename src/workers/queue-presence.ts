// Publishes which users have a live event queue on this node: the changes go to queue_presence on a timer, never per event.
import type { AppContext } from '../context.js';
import { QUEUE_PRESENCE_SECS } from '../lib/mail/live-queues.js';
import { startPollingWorker, type PollingWorker } from './polling-worker.js';

const CHUNK = 500;

/**
 * Keeps this node's rows equal to the users with a message queue here: inserts the new ones and
 * deletes the departed ones (a diff against what it last wrote), and moves its node row forward.
 * The first pass, and any pass after a failed one, replaces all of the node's rows.
 */
export function startQueuePresence(app: AppContext, log: (msg: string) => void, intervalMs = QUEUE_PRESENCE_SECS * 1000): PollingWorker {
  const node = app.config.nodeId;
  let written: Set<number> | null = null;
  const pass = async (): Promise<void> => {
    const current = app.queues.usersWithMessageQueues();
    const previous = written;
    const added = previous ? [...current].filter((id) => !previous.has(id)) : [...current];
    const removed = previous ? [...previous].filter((id) => !current.has(id)) : [];
    const now = app.clock.now();
    // Until this pass commits, the next one rewrites everything (a failed pass leaves the rows unknown).
    written = null;
    await app.store.write(async (tx) => {
      if (!previous) await tx.deleteFrom('queue_presence').where('node_id', '=', node).execute();
      for (let i = 0; i < removed.length; i += CHUNK) await tx.deleteFrom('queue_presence').where('node_id', '=', node).where('user_id', 'in', removed.slice(i, i + CHUNK)).execute();
      for (let i = 0; i < added.length; i += CHUNK) {
        const values = added.slice(i, i + CHUNK).map((user_id) => ({ node_id: node, user_id }));
        await tx.insertInto('queue_presence').values(values).onConflict((oc) => oc.columns(['node_id', 'user_id']).doNothing()).execute();
      }
      await tx.insertInto('queue_nodes').values({ node_id: node, seen_at: now }).onConflict((oc) => oc.column('node_id').doUpdateSet({ seen_at: now })).execute();
    });
    written = current;
  };
  const worker = startPollingWorker('queue presence', pass, log, intervalMs);
  return {
    // A pass that starts after the call (runNow alone may join one that read the clock earlier).
    runNow: async () => {
      await worker.runNow();
      await worker.runNow();
    },
    stop: () => worker.stop(),
  };
}

