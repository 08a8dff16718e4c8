// Applies events to a register state, as a client would: the reference for the events-consistency
// invariant (register state + events = a fresh register). Pure: no database, no I/O.

type State = Record<string, any>;
type Event = Record<string, any>;

const byNumber = (a: number, b: number) => a - b;

function insertSorted(list: number[], id: number): void {
  if (list.includes(id)) return;
  list.push(id);
  list.sort(byNumber);
}

function removeIds(list: number[], ids: Set<number>): number[] {
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
}

export function applyEvents(state: State, events: Event[], ctx: ApplyContext): State {
  for (const e of events) applyEvent(state, e, ctx);
  return state;
}

export function applyEvent(state: State, e: Event, ctx: ApplyContext): void {
  switch (e.type) {
    case 'heartbeat':
      return;
    case 'message':
      return applyMessage(state, e, ctx);
    case 'update_message':
      return applyUpdateMessage(state, e);
    case 'delete_message':
      return applyDeleteMessage(state, e);
    case 'update_message_flags':
      return applyFlags(state, e, ctx);
    case 'reaction':
      // Register state carries no messages, so reactions change nothing a client keeps from it.
      return;
    case 'realm_user':
      return applyRealmUser(state, e, ctx);
    case 'realm_bot':
      return applyRealmBot(state, e);
    case 'stream':
      return applyStream(state, e);
    case 'user_group':
      return applyUserGroup(state, e);
    case 'subscription':
      return applySubscription(state, e, ctx);
    case 'user_settings':
      if (e.op === 'update' && state.user_settings) state.user_settings[e.property] = e.value;
      return;
    case 'typing':
    case 'typing_edit_message':
      // Typing is momentary: nothing of it is in the register state.
      return;
    default:
      throw new Error(`applyEvent: unknown event type ${e.type}`);
  }
}

// ---- messages and unreads ----

function unreadBucket(unread: any, msg: any, ctx: ApplyContext): number[] {
  if (msg.type === 'stream') {
    let entry = unread.streams.find((s: any) => s.stream_id === msg.stream_id && s.topic === msg.subject);
    if (!entry) {
      entry = { stream_id: msg.stream_id, topic: msg.subject, unread_message_ids: [] };
      unread.streams.push(entry);
      unread.streams.sort(ORDER.unreadStreams);
    }
    return entry.unread_message_ids;
  }
  const others = (msg.display_recipient as any[]).map((r) => r.id).filter((id) => id !== ctx.userId);
  if (others.length <= 1) {
    const other = others[0] ?? ctx.userId;
    let entry = unread.pms.find((p: any) => p.other_user_id === other);
    if (!entry) {
      entry = { other_user_id: other, sender_id: other, unread_message_ids: [] };
      unread.pms.push(entry);
      unread.pms.sort(ORDER.unreadPms);
    }
    return entry.unread_message_ids;
  }
  const key = (msg.display_recipient as any[]).map((r) => r.id).sort(byNumber).join(',');
  let entry = unread.huddles.find((h: any) => h.user_ids_string === key);
  if (!entry) {
    entry = { user_ids_string: key, unread_message_ids: [] };
    unread.huddles.push(entry);
    unread.huddles.sort(ORDER.unreadHuddles);
  }
  return entry.unread_message_ids;
}

function isMention(flags: string[]): boolean {
  return flags.includes('mentioned') || flags.includes('stream_wildcard_mentioned') || flags.includes('topic_wildcard_mentioned');
}

function applyMessage(state: State, e: Event, ctx: ApplyContext): void {
  const msg = e.message;
  const flags: string[] = e.flags ?? [];
  if ('max_message_id' in state) state.max_message_id = Math.max(state.max_message_id, msg.id);
  if (state.unread_msgs && !flags.includes('read')) {
    insertSorted(unreadBucket(state.unread_msgs, msg, ctx), msg.id);
    if (isMention(flags)) insertSorted(state.unread_msgs.mentions, msg.id);
    state.unread_msgs.count += 1;
  }
  if (state.starred_messages && flags.includes('starred')) insertSorted(state.starred_messages, msg.id);
  if (state.recent_private_conversations && msg.type === 'private') {
    const others = (msg.display_recipient as any[]).map((r) => r.id).filter((id) => id !== ctx.userId).sort(byNumber);
    const list = state.recent_private_conversations as any[];
    const existing = list.find((c) => c.user_ids.length === others.length && c.user_ids.every((v: number, i: number) => v === others[i]));
    if (existing) existing.max_message_id = Math.max(existing.max_message_id, msg.id);
    else list.push({ max_message_id: msg.id, user_ids: others });
    list.sort(ORDER.recentConversations);
  }
}

/** Removes message IDs from every unread bucket; returns the details of those that were unread. */
function dropUnread(unread: any, ids: Set<number>): void {
  let removed = 0;
  for (const key of ['streams', 'pms', 'huddles']) {
    for (const entry of unread[key]) {
      const before = entry.unread_message_ids.length;
      entry.unread_message_ids = removeIds(entry.unread_message_ids, ids);
      removed += before - entry.unread_message_ids.length;
    }
    unread[key] = unread[key].filter((entry: any) => entry.unread_message_ids.length > 0);
  }
  unread.mentions = removeIds(unread.mentions, ids);
  unread.count -= removed;
}

function applyUpdateMessage(state: State, e: Event): void {
  const unread = state.unread_msgs;
  if (!unread) return;
  applyMovedUnreads(unread, e);
  // A content edit can add or remove a mention of this user.
  if (Array.isArray(e.flags) && e.message_id !== undefined && !e.rendering_only) {
    const wasUnread = [...unread.streams, ...unread.pms, ...unread.huddles].some((x: any) => x.unread_message_ids.includes(e.message_id));
    unread.mentions = removeIds(unread.mentions, new Set([e.message_id]));
    if (wasUnread && isMention(e.flags)) insertSorted(unread.mentions, e.message_id);
  }
}

/** Moves unread message IDs to their new channel and topic. */
function applyMovedUnreads(unread: any, e: Event): void {
  const moved = e.new_stream_id !== undefined || e.subject !== undefined;
  if (!moved || e.stream_id === undefined) return;
  const ids = new Set<number>(e.message_ids);
  const newStream = e.new_stream_id ?? e.stream_id;
  const newTopic = e.subject ?? e.orig_subject;
  const movedUnread: number[] = [];
  for (const entry of unread.streams) {
    if (entry.stream_id !== e.stream_id) continue;
    for (const id of entry.unread_message_ids) if (ids.has(id)) movedUnread.push(id);
    entry.unread_message_ids = removeIds(entry.unread_message_ids, ids);
  }
  unread.streams = unread.streams.filter((s: any) => s.unread_message_ids.length > 0);
  if (movedUnread.length) {
    let entry = unread.streams.find((s: any) => s.stream_id === newStream && s.topic === newTopic);
    if (!entry) {
      entry = { stream_id: newStream, topic: newTopic, unread_message_ids: [] };
      unread.streams.push(entry);
      unread.streams.sort(ORDER.unreadStreams);
    }
    for (const id of movedUnread) insertSorted(entry.unread_message_ids, id);
  }
}

function applyDeleteMessage(state: State, e: Event): void {
  const ids = new Set<number>(e.message_ids ?? [e.message_id]);
  if (state.unread_msgs) dropUnread(state.unread_msgs, ids);
  if (state.starred_messages) state.starred_messages = removeIds(state.starred_messages, ids);
}

function applyFlags(state: State, e: Event, ctx: ApplyContext): void {
  const ids = new Set<number>(e.messages);
  if (e.flag === 'starred' && state.starred_messages) {
    if (e.op === 'add') for (const id of ids) insertSorted(state.starred_messages, id);
    else state.starred_messages = removeIds(state.starred_messages, ids);
  }
  if (e.flag !== 'read' || !state.unread_msgs) return;
  if (e.op === 'add') {
    dropUnread(state.unread_msgs, ids);
    return;
  }
  for (const id of e.messages as number[]) {
    const d = e.message_details?.[String(id)];
    if (!d) continue;
    const already = [...state.unread_msgs.streams, ...state.unread_msgs.pms, ...state.unread_msgs.huddles].some((x: any) => x.unread_message_ids.includes(id));
    if (already) continue;
    const msg =
      d.type === 'stream'
        ? { type: 'stream', stream_id: d.stream_id, subject: d.topic }
        : { type: 'private', display_recipient: [...d.user_ids, ctx.userId].map((uid: number) => ({ id: uid })) };
    insertSorted(unreadBucket(state.unread_msgs, msg, ctx), id);
    if (d.mentioned) insertSorted(state.unread_msgs.mentions, id);
    state.unread_msgs.count += 1;
  }
}

// ---- users ----

/** Register's top-level fields about the user themselves that realm_user updates also change. */
const OWN_FIELDS = ['full_name', 'delivery_email', 'avatar_source', 'avatar_url', 'avatar_url_medium'];

function applyRealmUser(state: State, e: Event, ctx: ApplyContext): void {
  if (e.op === 'update' && e.person.user_id === ctx.userId) {
    for (const f of OWN_FIELDS) if (f in e.person && f in state) state[f] = e.person[f];
    if (e.person.new_email !== undefined && 'email' in state) state.email = e.person.new_email;
  }
  if (!state.realm_users) return;
  if (e.op === 'add') {
    state.realm_users = state.realm_users.filter((u: any) => u.user_id !== e.person.user_id);
    state.realm_users.push(e.person);
    state.realm_users.sort(ORDER.users);
    return;
  }
  if (e.op === 'update') {
    const u = [...state.realm_users, ...(state.realm_non_active_users ?? [])].find((x: any) => x.user_id === e.person.user_id);
    if (!u) return;
    // User objects carry no avatar source or medium URL; clients computing third-party avatars keep null (or none).
    const { new_email, avatar_url_medium: _medium, avatar_source, ...rest } = e.person;
    if (ctx.clientGravatar && avatar_source === 'G' && 'avatar_url' in rest) {
      delete rest.avatar_url;
      if ('avatar_url' in u) u.avatar_url = null;
    }
    Object.assign(u, rest);
    if (new_email !== undefined) u.email = new_email;
    return;
  }
  if (e.op === 'remove') {
    state.realm_users = state.realm_users.filter((u: any) => u.user_id !== e.person.user_id);
  }
}

function applyRealmBot(state: State, e: Event): void {
  if (!state.realm_bots) return;
  const id = e.bot.user_id;
  if (e.op === 'add') {
    state.realm_bots = state.realm_bots.filter((b: any) => b.user_id !== id);
    state.realm_bots.push(e.bot);
    state.realm_bots.sort(ORDER.users);
  } else if (e.op === 'update') {
    const b = state.realm_bots.find((x: any) => x.user_id === id);
    if (b) Object.assign(b, e.bot);
  } else if (e.op === 'remove' || e.op === 'delete') {
    state.realm_bots = state.realm_bots.filter((b: any) => b.user_id !== id);
  }
}

// ---- user groups ----

function applyUserGroup(state: State, e: Event): void {
  const groups: any[] | undefined = state.realm_user_groups;
  if (!groups) return;
  if (e.op === 'add') {
    groups.push(e.group);
    groups.sort((a, b) => a.id - b.id);
    return;
  }
  const g = groups.find((x) => x.id === e.group_id);
  if (!g) return;
  switch (e.op) {
    case 'add_members':
      g.members = [...new Set([...g.members, ...e.user_ids])].sort(byNumber);
      return;
    case 'remove_members':
      g.members = g.members.filter((u: number) => !e.user_ids.includes(u));
      return;
    case 'add_subgroups':
      g.direct_subgroup_ids = [...new Set([...g.direct_subgroup_ids, ...e.direct_subgroup_ids])].sort(byNumber);
      return;
    case 'remove_subgroups':
      g.direct_subgroup_ids = g.direct_subgroup_ids.filter((x: number) => !e.direct_subgroup_ids.includes(x));
      return;
    case 'update':
      Object.assign(g, e.data);
      return;
    case 'remove':
      state.realm_user_groups = groups.filter((x) => x.id !== e.group_id);
      return;
  }
}

// ---- channels and subscriptions ----

function applyStream(state: State, e: Event): void {
  if (e.op === 'create') {
    if (state.streams) {
      for (const s of e.streams) {
        state.streams = state.streams.filter((x: any) => x.stream_id !== s.stream_id);
        state.streams.push(s);
      }
      state.streams.sort(ORDER.streams);
    }
    if (state.never_subscribed) {
      const known = new Set([...(state.subscriptions ?? []), ...(state.unsubscribed ?? []), ...state.never_subscribed].map((s: any) => s.stream_id));
      for (const s of e.streams) {
        if (!known.has(s.stream_id)) state.never_subscribed.push({ ...s, ...(state.__include_subscribers ? { subscribers: [] } : {}) });
      }
      state.never_subscribed.sort(ORDER.streams);
    }
    return;
  }
  if (e.op === 'update') {
    for (const list of [state.streams, state.subscriptions, state.unsubscribed, state.never_subscribed]) {
      const s = list?.find((x: any) => x.stream_id === e.stream_id);
      if (s) s[e.property] = e.value;
    }
    return;
  }
  if (e.op === 'delete') {
    const ids = new Set(e.streams.map((s: any) => s.stream_id));
    for (const key of ['streams', 'subscriptions', 'unsubscribed', 'never_subscribed']) {
      if (state[key]) state[key] = state[key].filter((s: any) => !ids.has(s.stream_id));
    }
  }
}

function applySubscription(state: State, e: Event, _ctx: ApplyContext): void {
  if (!state.subscriptions) return;
  switch (e.op) {
    case 'add': {
      const ids = new Set(e.subscriptions.map((s: any) => s.stream_id));
      state.subscriptions = state.subscriptions.filter((s: any) => !ids.has(s.stream_id));
      state.subscriptions.push(
        ...e.subscriptions.map((s: any) => {
          const copy = structuredClone(s);
          // Clients that did not ask for subscriber lists do not keep them.
          if (!state.__include_subscribers) delete copy.subscribers;
          return copy;
        }),
      );
      state.subscriptions.sort(ORDER.subscriptions);
      // The subscription carries the channel's current subscriber count; the channel list follows it.
      for (const sub of e.subscriptions) {
        const stream = state.streams?.find((x: any) => x.stream_id === sub.stream_id);
        if (stream && typeof sub.subscriber_count === 'number') stream.subscriber_count = sub.subscriber_count;
      }
      if (state.unsubscribed) state.unsubscribed = state.unsubscribed.filter((s: any) => !ids.has(s.stream_id));
      if (state.never_subscribed) state.never_subscribed = state.never_subscribed.filter((s: any) => !ids.has(s.stream_id));
      return;
    }
    case 'remove': {
      const ids = new Set(e.subscriptions.map((s: any) => s.stream_id));
      const removed = state.subscriptions.filter((s: any) => ids.has(s.stream_id));
      state.subscriptions = state.subscriptions.filter((s: any) => !ids.has(s.stream_id));
      if (state.unsubscribed) {
        for (const s of removed) {
          // The peer_remove that follows updates subscribers and subscriber_count.
          state.unsubscribed.push(s);
        }
        state.unsubscribed.sort(ORDER.subscriptions);
      }
      return;
    }
    case 'update': {
      const s = state.subscriptions.find((x: any) => x.stream_id === e.stream_id);
      if (s) s[e.property] = e.value;
      if (s && e.property === 'in_home_view') s.is_muted = !e.value;
      if (s && e.property === 'is_muted') s.in_home_view = !e.value;
      return;
    }
    case 'peer_add':
    case 'peer_remove': {
      const streamIds = new Set<number>(e.stream_ids);
      const users: number[] = e.user_ids;
      const lists = [state.subscriptions, state.unsubscribed, state.never_subscribed, state.streams].filter(Boolean);
      for (const list of lists) {
        for (const s of list) {
          if (!streamIds.has(s.stream_id)) continue;
          if (Array.isArray(s.subscribers)) {
            const set = new Set<number>(s.subscribers);
            const before = set.size;
            for (const u of users) {
              if (e.op === 'peer_add') set.add(u);
              else set.delete(u);
            }
            s.subscribers = [...set].sort(byNumber);
            if (typeof s.subscriber_count === 'number') s.subscriber_count += set.size - before;
          } else if (typeof s.subscriber_count === 'number') {
            s.subscriber_count += e.op === 'peer_add' ? users.length : -users.length;
          }
        }
      }
      return;
    }
  }
}
