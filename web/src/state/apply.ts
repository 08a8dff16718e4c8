// Applies one server event to the client state; pure (a new state object, the old one untouched).
import { channel, dmKey, draftOf, person, presenceOf, sortDrafts, subscription, type ClientState, type UnreadPlace } from './model.js';

const MENTION_FLAGS = ['mentioned', 'stream_wildcard_mentioned', 'topic_wildcard_mentioned'];

const addSorted = (list: number[], ids: number[]): number[] => [...new Set([...list, ...ids])].sort((a, b) => a - b);
const without = (list: number[], ids: Set<number>): number[] => list.filter((id) => !ids.has(id));

function dropKeys<T>(rec: Record<number, T>, ids: Iterable<number>): Record<number, T> {
  const copy = { ...rec };
  for (const id of ids) delete copy[id];
  return copy;
}

/** Where a message (as a message event carries it) counts as unread. */
export function placeOf(msg: any, me: number): UnreadPlace {
  if (msg.type === 'stream') return { kind: 'stream', stream_id: msg.stream_id, topic: msg.subject };
  const others = (msg.display_recipient as { id: number }[]).map((r) => r.id).filter((id) => id !== me);
  return { kind: 'dm', key: dmKey(others) };
}

export function applyEvent(state: ClientState, e: any): ClientState {
  switch (e.type) {
    case 'message':
      return applyMessage(state, e);
    case 'update_message':
      return applyMoved(state, e);
    case 'delete_message': {
      const ids = new Set<number>(e.message_ids ?? [e.message_id]);
      return { ...state, unread: dropKeys(state.unread, ids), mentions: without(state.mentions, ids), starred: without(state.starred, ids) };
    }
    case 'update_message_flags':
      return applyFlags(state, e);
    case 'realm_user':
      return applyRealmUser(state, e);
    case 'stream':
      return applyStream(state, e);
    case 'subscription':
      return applySubscription(state, e);
    case 'user_settings':
      return e.op === 'update' ? { ...state, settings: { ...state.settings, [e.property]: e.value } } : state;
    case 'presence':
      return applyPresence(state, e);
    case 'drafts':
      return applyDrafts(state, e);
    case 'realm':
      return e.op === 'update' && e.property === 'name' ? { ...state, realmName: e.value } : state;
    default:
      // heartbeat, reaction and typing change nothing kept here (messages and typing live elsewhere).
      return state;
  }
}

function applyMessage(state: ClientState, e: any): ClientState {
  const flags: string[] = e.flags ?? [];
  const id: number = e.message.id;
  let next = state;
  if (!flags.includes('read')) {
    next = { ...next, unread: { ...next.unread, [id]: placeOf(e.message, state.me) } };
    if (flags.some((f) => MENTION_FLAGS.includes(f))) next.mentions = addSorted(next.mentions, [id]);
  }
  if (flags.includes('starred')) next = { ...next, starred: addSorted(next.starred, [id]) };
  return next;
}

/** A move (channel or topic) takes the moved messages' unread places along; a content edit may change a mention. */
function applyMoved(state: ClientState, e: any): ClientState {
  let next = state;
  const moved = e.new_stream_id !== undefined || e.subject !== undefined;
  if (moved && e.stream_id !== undefined) {
    const unread = { ...state.unread };
    const topic = e.subject ?? e.orig_subject;
    const streamId = e.new_stream_id ?? e.stream_id;
    for (const id of e.message_ids as number[]) if (unread[id]) unread[id] = { kind: 'stream', stream_id: streamId, topic };
    next = { ...next, unread };
  }
  if (Array.isArray(e.flags) && e.message_id !== undefined && !e.rendering_only) {
    const mentioned = (e.flags as string[]).some((f) => MENTION_FLAGS.includes(f));
    const ids = new Set<number>([e.message_id]);
    next = { ...next, mentions: mentioned && next.unread[e.message_id] ? addSorted(next.mentions, [e.message_id]) : without(next.mentions, ids) };
  }
  return next;
}

function applyFlags(state: ClientState, e: any): ClientState {
  const ids: number[] = e.messages;
  if (e.flag === 'starred') return { ...state, starred: e.op === 'add' ? addSorted(state.starred, ids) : without(state.starred, new Set(ids)) };
  if (e.flag !== 'read') return state;
  if (e.op === 'add') return { ...state, unread: dropKeys(state.unread, ids), mentions: without(state.mentions, new Set(ids)) };
  const unread = { ...state.unread };
  let mentions = state.mentions;
  for (const id of ids) {
    const d = e.message_details?.[String(id)];
    if (!d || unread[id]) continue;
    unread[id] = d.type === 'stream' ? { kind: 'stream', stream_id: d.stream_id, topic: d.topic } : { kind: 'dm', key: dmKey((d.user_ids as number[]).filter((u) => u !== state.me)) };
    if (d.mentioned) mentions = addSorted(mentions, [id]);
  }
  return { ...state, unread, mentions };
}

function applyRealmUser(state: ClientState, e: any): ClientState {
  const id: number = e.person.user_id;
  if (e.op === 'add') {
    if (e.person.is_active === false) return { ...state, users: dropKeys(state.users, [id]) };
    return { ...state, users: { ...state.users, [id]: person(e.person) } };
  }
  if (e.op === 'remove') return { ...state, users: dropKeys(state.users, [id]) };
  if (e.op !== 'update') return state;
  const known = state.users[id];
  if (e.person.is_active === false) return { ...state, users: dropKeys(state.users, [id]) };
  if (!known) return state;
  const changed = { ...known };
  for (const k of ['full_name', 'role', 'avatar_url'] as const) if (k in e.person) (changed as any)[k] = e.person[k];
  if (e.person.new_email !== undefined) changed.email = e.person.new_email;
  const isAdmin = id === state.me && 'role' in e.person ? e.person.role <= 200 : state.isAdmin;
  return { ...state, users: { ...state.users, [id]: changed }, isAdmin };
}

function applyStream(state: ClientState, e: any): ClientState {
  if (e.op === 'create') {
    const channels = { ...state.channels };
    for (const s of e.streams) channels[s.stream_id] = channel(s);
    return { ...state, channels };
  }
  if (e.op === 'delete') {
    const ids = (e.streams as any[]).map((s) => s.stream_id);
    return { ...state, channels: dropKeys(state.channels, ids), subscriptions: dropKeys(state.subscriptions, ids) };
  }
  if (e.op === 'update') {
    const keyOf: Record<string, string> = { name: 'name', description: 'description', invite_only: 'invite_only', is_archived: 'is_archived' };
    const key = keyOf[e.property];
    if (!key) return state;
    const value = key === 'invite_only' || key === 'is_archived' ? !!e.value : e.value;
    const patch = <T extends object>(rec: Record<number, T>): Record<number, T> => (rec[e.stream_id] ? { ...rec, [e.stream_id]: { ...rec[e.stream_id], [key]: value } } : rec);
    return { ...state, channels: patch(state.channels), subscriptions: patch(state.subscriptions) };
  }
  return state;
}

function applySubscription(state: ClientState, e: any): ClientState {
  if (e.op === 'add') {
    const subscriptions = { ...state.subscriptions };
    const channels = { ...state.channels };
    for (const s of e.subscriptions) {
      subscriptions[s.stream_id] = subscription(s);
      channels[s.stream_id] = channel(s);
    }
    return { ...state, subscriptions, channels };
  }
  if (e.op === 'remove') {
    const ids = (e.subscriptions as any[]).map((s) => s.stream_id);
    // A private channel one leaves is no longer visible; the register then drops it from streams too.
    const lost = ids.filter((id) => state.channels[id]?.invite_only);
    return { ...state, subscriptions: dropKeys(state.subscriptions, ids), channels: dropKeys(state.channels, lost) };
  }
  if (e.op === 'update') {
    const sub = state.subscriptions[e.stream_id];
    if (!sub) return state;
    const props: Record<string, string> = { color: 'color', is_muted: 'is_muted', in_home_view: 'is_muted', pin_to_top: 'pin_to_top' };
    const key = props[e.property];
    if (!key) return state;
    const value = e.property === 'in_home_view' ? !e.value : e.value;
    return { ...state, subscriptions: { ...state.subscriptions, [e.stream_id]: { ...sub, [key]: value } } };
  }
  return state;
}

function applyPresence(state: ClientState, e: any): ClientState {
  if (!e.presences) return state;
  const presence = { ...state.presence };
  for (const [id, p] of Object.entries(e.presences)) presence[Number(id)] = presenceOf(p);
  return { ...state, presence };
}

function applyDrafts(state: ClientState, e: any): ClientState {
  if (e.op === 'add' || e.op === 'update') {
    const incoming = (e.op === 'add' ? e.drafts : [e.draft]).map(draftOf);
    const ids = new Set(incoming.map((d: { id: number }) => d.id));
    return { ...state, drafts: sortDrafts([...state.drafts.filter((d) => !ids.has(d.id)), ...incoming]) };
  }
  if (e.op === 'remove') return { ...state, drafts: state.drafts.filter((d) => d.id !== e.draft_id) };
  return state;
}
