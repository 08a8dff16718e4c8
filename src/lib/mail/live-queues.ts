// Whether a user has a live event queue for messages on any node (the email worker's "active" test; see workers/queue-presence.ts).
import type { AppContext } from '../../context.js';

/** How often each node writes what changed and refreshes its queue_nodes row. */
export const QUEUE_PRESENCE_SECS = 20;
/** A node whose row is older than this is gone (stopped or dead): its users no longer count. */
export const QUEUE_NODE_TTL_SECS = 70;

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
