// Table types of migration 023: the event log, durable event queues, live nodes.
import type { Generated } from 'kysely';

export interface EventLogTable {
  id: Generated<number>;
  realm_id: number;
  stamp: string | null;
  created_at: number;
  body: string;
}

export interface EventQueueTable {
  id: string;
  node_id: string;
  user_id: number;
  realm_id: number;
  options: string;
  snapshot: string | null;
  base_pos: number;
  base_event_id: number;
  last_touched: number;
}

export interface EventNodeTable {
  node_id: string;
  instance: string;
  seen_at: number;
}

export interface EventTables {
  event_log: EventLogTable;
  event_queues: EventQueueTable;
  event_nodes: EventNodeTable;
}
