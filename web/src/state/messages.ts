// The loaded messages and the feeds (one per narrow) built from them; events keep both current. Pure.
import { matchesNarrow, type Narrow } from './narrow.js';

export interface Reaction {
  emoji_name: string;
  emoji_code: string;
  reaction_type: string;
  user_id: number;
}

export interface Message {
  id: number;
  sender_id: number;
  sender_full_name: string;
  type: 'stream' | 'private';
  stream_id: number | null;
  subject: string;
  /** Direct messages: the participants' IDs, sorted. */
  dm_users: number[];
  /** Server-rendered, sanitized HTML. */
  content: string;
  timestamp: number;
  last_edit_timestamp: number | null;
  reactions: Reaction[];
  flags: string[];
}

export interface Feed {
  narrow: Narrow;
  /** Message IDs, ascending. */
  ids: number[];
  foundOldest: boolean;
  foundNewest: boolean;
}

export interface MessageStore {
  byId: Record<number, Message>;
  feeds: Record<string, Feed>;
}

export const emptyStore = (): MessageStore => ({ byId: {}, feeds: {} });

/** A message as GET /messages or a message event gives it. */
export function messageOf(m: any, flags?: string[]): Message {
  return {
    id: m.id,
    sender_id: m.sender_id,
    sender_full_name: m.sender_full_name,
    type: m.type,
    stream_id: m.type === 'stream' ? m.stream_id : null,
    subject: m.subject ?? '',
    dm_users: m.type === 'private' ? (m.display_recipient as { id: number }[]).map((r) => r.id).sort((a, b) => a - b) : [],
    content: m.content,
    timestamp: m.timestamp,
    last_edit_timestamp: m.last_edit_timestamp ?? null,
    reactions: (m.reactions ?? []).map((r: any) => ({ emoji_name: r.emoji_name, emoji_code: r.emoji_code, reaction_type: r.reaction_type, user_id: r.user_id })),
    flags: [...(flags ?? m.flags ?? [])].sort(),
  };
}

const sortedUnique = (ids: number[]): number[] => [...new Set(ids)].sort((a, b) => a - b);

/** Adds a page of GET /messages to a feed. */
export function addPage(store: MessageStore, key: string, narrow: Narrow, page: { messages: any[]; found_oldest: boolean; found_newest: boolean }, direction: 'older' | 'newer' | 'initial'): MessageStore {
  const byId = { ...store.byId };
  for (const m of page.messages) byId[m.id] = messageOf(m);
  const old = store.feeds[key];
  const ids = sortedUnique([...(old?.ids ?? []), ...page.messages.map((m) => m.id)]);
  const feed: Feed = {
    narrow,
    ids,
    foundOldest: direction === 'newer' ? (old?.foundOldest ?? false) : page.found_oldest,
    foundNewest: direction === 'older' ? (old?.foundNewest ?? false) : page.found_newest,
  };
  return { byId, feeds: { ...store.feeds, [key]: feed } };
}

function patchMessages(store: MessageStore, ids: Iterable<number>, fn: (m: Message) => Message): MessageStore {
  let byId: Record<number, Message> | null = null;
  for (const id of ids) {
    const m = store.byId[id];
    if (!m) continue;
    byId ??= { ...store.byId };
    byId[id] = fn(m);
  }
  return byId ? { ...store, byId } : store;
}

export function applyMessageEvent(store: MessageStore, e: any, me: number): MessageStore {
  switch (e.type) {
    case 'message': {
      const msg = messageOf(e.message, e.flags ?? []);
      const feeds = { ...store.feeds };
      for (const [key, feed] of Object.entries(feeds)) {
        // Only a feed that reaches the newest message gets it; a feed scrolled back fetches it later.
        if (feed.foundNewest && matchesNarrow({ ...e.message, flags: msg.flags }, feed.narrow, me)) feeds[key] = { ...feed, ids: sortedUnique([...feed.ids, msg.id]) };
      }
      return { byId: { ...store.byId, [msg.id]: msg }, feeds };
    }
    case 'update_message': {
      const ids: number[] = e.message_ids ?? [e.message_id];
      let next = store;
      if (e.rendered_content !== undefined && e.message_id !== undefined) {
        next = patchMessages(next, [e.message_id], (m) => ({ ...m, content: e.rendered_content, last_edit_timestamp: e.rendering_only ? m.last_edit_timestamp : e.edit_timestamp }));
      }
      if (e.subject !== undefined || e.new_stream_id !== undefined) {
        // A move is not an edit of the content: last_edit_timestamp stays.
        next = patchMessages(next, ids, (m) => ({ ...m, subject: e.subject ?? m.subject, stream_id: e.new_stream_id ?? m.stream_id }));
        // Moved messages leave the channel and topic feeds they no longer belong to.
        const moved = new Set(ids);
        const feeds: Record<string, Feed> = {};
        for (const [key, feed] of Object.entries(next.feeds)) {
          const scoped = feed.narrow.kind === 'stream' || feed.narrow.kind === 'topic';
          feeds[key] = scoped ? { ...feed, ids: feed.ids.filter((id) => !moved.has(id) || !next.byId[id] || matchesNarrow(wireShape(next.byId[id]), feed.narrow, me)) } : feed;
        }
        next = { ...next, feeds };
      }
      return next;
    }
    case 'delete_message': {
      const gone = new Set<number>(e.message_ids ?? [e.message_id]);
      const byId = { ...store.byId };
      for (const id of gone) delete byId[id];
      const feeds: Record<string, Feed> = {};
      for (const [key, feed] of Object.entries(store.feeds)) feeds[key] = { ...feed, ids: feed.ids.filter((id) => !gone.has(id)) };
      return { byId, feeds };
    }
    case 'reaction': {
      const r: Reaction = { emoji_name: e.emoji_name, emoji_code: e.emoji_code, reaction_type: e.reaction_type, user_id: e.user_id };
      const same = (x: Reaction) => x.user_id === r.user_id && x.emoji_code === r.emoji_code && x.reaction_type === r.reaction_type;
      return patchMessages(store, [e.message_id], (m) => ({ ...m, reactions: e.op === 'add' ? [...m.reactions.filter((x) => !same(x)), r] : m.reactions.filter((x) => !same(x)) }));
    }
    case 'update_message_flags': {
      const ids: number[] = e.all ? Object.keys(store.byId).map(Number) : e.messages;
      return patchMessages(store, ids, (m) => ({ ...m, flags: e.op === 'add' ? sortedUnique0([...m.flags, e.flag]) : m.flags.filter((f) => f !== e.flag) }));
    }
    case 'realm_user': {
      // Messages show their sender's current name.
      if (e.op !== 'update' || e.person.full_name === undefined) return store;
      const ids = Object.values(store.byId).filter((m) => m.sender_id === e.person.user_id).map((m) => m.id);
      return patchMessages(store, ids, (m) => ({ ...m, sender_full_name: e.person.full_name }));
    }
    default:
      return store;
  }
}

/** A stored message in the shape matchesNarrow reads (the API's field names). */
const wireShape = (m: Message) => ({ type: m.type, stream_id: m.stream_id, subject: m.subject, flags: m.flags, display_recipient: m.dm_users.map((id) => ({ id })) });

const sortedUnique0 = (flags: string[]): string[] => [...new Set(flags)].sort();
