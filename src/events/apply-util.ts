// Shared pieces of the pure event application: state and event shapes, canonical orders, list helpers.

export type State = Record<string, any>;
export type Event = Record<string, any>;

export const byNumber = (a: number, b: number) => a - b;

export function insertSorted(list: number[], id: number): void {
  if (list.includes(id)) return;
  list.push(id);
  list.sort(byNumber);
}

export function removeIds(list: number[], ids: Set<number>): number[] {
  return list.filter((x) => !ids.has(x));
}

/** Canonical orders the register state uses; apply keeps them. */
export const ORDER = {
  users: (a: any, b: any) => a.user_id - b.user_id,
  streams: (a: any, b: any) => a.stream_id - b.stream_id,
  subscriptions: (a: any, b: any) => a.stream_id - b.stream_id,
  unreadStreams: (a: any, b: any) => a.stream_id - b.stream_id || (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : 0),
  unreadPms: (a: any, b: any) => a.other_user_id - b.other_user_id,
  unreadHuddles: (a: any, b: any) => (a.user_ids_string < b.user_ids_string ? -1 : a.user_ids_string > b.user_ids_string ? 1 : 0),
  recentConversations: (a: any, b: any) => b.max_message_id - a.max_message_id,
};

export interface ApplyContext {
  /** The user whose state this is. */
  userId: number;
  /** Whether the client registered with client_gravatar (it computes third-party avatar URLs itself). */
  clientGravatar?: boolean;
  /** The client's declared capabilities (user_list_incomplete changes what realm_user remove does). */
  capabilities?: Record<string, boolean>;
}
