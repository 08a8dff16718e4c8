// Which users have a live event queue on any node: each node writes its changes to queue_presence on a timer, never per event.
import type { AppContext } from '../context.js';
import type { Worker } from '../workers/reminders.js';

/** How often a node writes what changed and refreshes its queue_nodes row. */
export const QUEUE_PRESENCE_SECS = 20;
/** A node whose row is older than this is gone (stopped or dead): its users no longer count. */
export const QUEUE_NODE_TTL_SECS = 70;
const CHUNK = 500;

/**
 * Keeps this node's rows equal to the users with a message queue here: inserts the new ones and
 * deletes the departed ones (a diff against what it last wrote), and moves its node row forward.
 * The first pass, and any pass after a failed one, replaces all of the node's rows.
 */
export function startQueuePresence(app: AppContext, log: (msg: string) => void, intervalMs = QUEUE_PRESENCE_SECS * 1000): Worker & { runNow(): Promise<void> } {
  const node = app.config.nodeId;
  let written: Set<number> | null = null;
  let running: Promise<void> | null = null;
  let stopped = false;
  const pass = async (): Promise<void> => {
    const current = app.queues.usersWithMessageQueues();
    const previous = written;
    const added = previous ? [...current].filter((id) => !previous.has(id)) : [...current];
    const removed = previous ? [...previous].filter((id) => !current.has(id)) : [];
    const now = app.clock.now();
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
  const tick = (): Promise<void> => {
    if (stopped) return Promise.resolve();
    running ??= pass()
      .catch((err: unknown) => {
        written = null;
        log(`queue presence: ${err instanceof Error ? err.stack : String(err)}`);
      })
      .finally(() => {
        running = null;
      });
    return running;
  };
  const timer = setInterval(() => void tick(), intervalMs);
  timer.unref();
  void tick();
  return {
    runNow: async () => {
      await running;
      await tick();
    },
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}

/**
 * Whether the user has a live message queue: on this node (asked directly), or on another node
 * whose last write is recent (at most QUEUE_PRESENCE_SECS behind the truth).
 */
export async function hasLiveQueue(app: AppContext, userId: number, now: number): Promise<boolean> {
  if (app.queues.hasMessageQueue(userId)) return true;
  const row = await app.store.db
    .selectFrom('queue_presence as p')
    .innerJoin('queue_nodes as n', 'n.node_id', 'p.node_id')
    .select('p.user_id')
    .where('p.user_id', '=', userId)
    .where('n.seen_at', '>=', now - QUEUE_NODE_TTL_SECS)
    .executeTakeFirst();
  return row !== undefined;
}
