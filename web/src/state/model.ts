// The client's state as plain data: what the sidebars, unread counts and settings need, built from /register.

export interface Person {
  user_id: number;
  full_name: string;
  email: string;
  is_bot: boolean;
  role: number;
  avatar_url: string | null;
}

export interface Channel {
  stream_id: number;
  name: string;
  description: string;
  invite_only: boolean;
  is_archived: boolean;
}

export interface Subscription extends Channel {
  color: string;
  is_muted: boolean;
  pin_to_top: boolean;
}

/** Where an unread message is: a channel's topic, or a direct conversation (other user IDs, sorted, "," joined). */
export type UnreadPlace = { kind: 'stream'; stream_id: number; topic: string } | { kind: 'dm'; key: string };

export interface Presence {
  active_timestamp: number;
  idle_timestamp: number;
}

export interface Draft {
  id: number;
  type: string;
  to: number[];
  topic: string;
  content: string;
  timestamp: number;
}

export interface ClientState {
  me: number;
  realmName: string;
  /** Active users (bots included) by ID. */
  users: Record<number, Person>;
  /** Every channel the user can see, by ID. */
  channels: Record<number, Channel>;
  subscriptions: Record<number, Subscription>;
  unread: Record<number, UnreadPlace>;
  /** Unread messages that mention the user, ascending. */
  mentions: number[];
  starred: number[];
  settings: Record<string, unknown>;
  presence: Record<number, Presence>;
  drafts: Draft[];
  /** Per role-gated admin page: whether the user is an administrator or owner. */
  isAdmin: boolean;
}

/** What the client asks /register for (event types included). */
export const FETCH_EVENT_TYPES = ['message', 'update_message', 'delete_message', 'update_message_flags', 'reaction', 'realm_user', 'stream', 'subscription', 'user_settings', 'presence', 'typing', 'drafts', 'realm'];

export const REGISTER_PARAMS = {
  apply_markdown: true,
  client_gravatar: false,
  include_subscribers: false,
  slim_presence: true,
  fetch_event_types: JSON.stringify(['message', 'update_message_flags', 'realm_user', 'stream', 'subscription', 'user_settings', 'presence', 'drafts', 'realm', 'starred_messages']),
  event_types: JSON.stringify(FETCH_EVENT_TYPES),
  client_capabilities: JSON.stringify({ notification_settings_null: true, bulk_message_deletion: true, user_settings_object: true, stream_typing_notifications: true, empty_topic_name: true, archived_channels: true, simplified_presence_events: true }),
};

export const dmKey = (otherIds: number[]): string => [...otherIds].sort((a, b) => a - b).join(',');

export function person(u: any): Person {
  return { user_id: u.user_id, full_name: u.full_name, email: u.email, is_bot: !!u.is_bot, role: u.role, avatar_url: u.avatar_url ?? null };
}

export function channel(s: any): Channel {
  return { stream_id: s.stream_id, name: s.name, description: s.description ?? '', invite_only: !!s.invite_only, is_archived: !!s.is_archived };
}

export function subscription(s: any): Subscription {
  return { ...channel(s), color: s.color, is_muted: !!s.is_muted, pin_to_top: !!s.pin_to_top };
}

const presenceOf = (p: any): Presence => ({ active_timestamp: p.active_timestamp ?? 0, idle_timestamp: p.idle_timestamp ?? 0 });

function draftOf(d: any): Draft {
  return { id: d.id, type: d.type, to: d.to ?? [], topic: d.topic ?? '', content: d.content, timestamp: d.timestamp };
}

export const sortDrafts = (list: Draft[]): Draft[] => list.sort((a, b) => b.timestamp - a.timestamp || b.id - a.id);

/** The client state of a /register answer. */
export function fromRegister(reg: any): ClientState {
  const users: Record<number, Person> = {};
  for (const u of reg.realm_users ?? []) users[u.user_id] = person(u);
  const channels: Record<number, Channel> = {};
  for (const s of reg.streams ?? []) channels[s.stream_id] = channel(s);
  const subscriptions: Record<number, Subscription> = {};
  for (const s of reg.subscriptions ?? []) subscriptions[s.stream_id] = subscription(s);
  const unread: Record<number, UnreadPlace> = {};
  const u = reg.unread_msgs ?? { streams: [], pms: [], huddles: [], mentions: [] };
  for (const e of u.streams) for (const id of e.unread_message_ids) unread[id] = { kind: 'stream', stream_id: e.stream_id, topic: e.topic };
  for (const e of u.pms) for (const id of e.unread_message_ids) unread[id] = { kind: 'dm', key: e.other_user_id === reg.user_id ? '' : String(e.other_user_id) };
  for (const e of u.huddles) {
    const others = String(e.user_ids_string).split(',').map(Number).filter((id) => id !== reg.user_id);
    for (const id of e.unread_message_ids) unread[id] = { kind: 'dm', key: dmKey(others) };
  }
  const presence: Record<number, Presence> = {};
  for (const [id, p] of Object.entries(reg.presences ?? {})) presence[Number(id)] = presenceOf(p);
  return {
    me: reg.user_id,
    realmName: reg.realm_name ?? '',
    users,
    channels,
    subscriptions,
    unread,
    mentions: [...(u.mentions ?? [])].sort((a: number, b: number) => a - b),
    starred: [...(reg.starred_messages ?? [])].sort((a: number, b: number) => a - b),
    settings: { ...(reg.user_settings ?? {}) },
    presence,
    drafts: sortDrafts((reg.drafts ?? []).map(draftOf)),
    isAdmin: !!reg.is_admin,
  };
}

export { draftOf, presenceOf };
