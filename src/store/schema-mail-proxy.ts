// Table types of migration 027: server secrets, composed email batches, users' live event queues per node.
import type { Generated } from 'kysely';

export interface ServerSecretTable {
  name: string;
  value: string;
}

/** A composed missed-message email between its send and the deletion of its pending rows. */
export interface EmailBatchTable {
  id: Generated<number>;
  user_id: number;
  /** The Message-ID header every attempt of this batch carries. */
  message_id_header: string;
  /** The composed message (JSON of a MailMessage), so a retry sends the same bytes. */
  payload: string;
  /** Until then the node that composed (or last retried) it owns it. */
  lease_until: number;
  attempts: Generated<number>;
  created_at: number;
}

/** A user with at least one live event queue (accepting message events) on a node. */
export interface QueuePresenceTable {
  node_id: string;
  user_id: number;
}

/** A node's liveness for queue_presence: its rows count while seen_at is recent. */
export interface QueueNodeTable {
  node_id: string;
  seen_at: number;
}

export interface MailProxyTables {
  server_secrets: ServerSecretTable;
  email_batches: EmailBatchTable;
  queue_presence: QueuePresenceTable;
  queue_nodes: QueueNodeTable;
}
