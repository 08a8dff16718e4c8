// Applies message events (new, edited, moved, deleted, flags) to the unread, starred and recent-conversation state.
import { byNumber, insertSorted, ORDER, removeIds, type ApplyContext, type Event, type State } from './apply-util.js';

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

export function applyMessage(state: State, e: Event, ctx: ApplyContext): void {
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

export function applyUpdateMessage(state: State, e: Event): void {
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

export function applyDeleteMessage(state: State, e: Event): void {
  const ids = new Set<number>(e.message_ids ?? [e.message_id]);
  if (state.unread_msgs) dropUnread(state.unread_msgs, ids);
  if (state.starred_messages) state.starred_messages = removeIds(state.starred_messages, ids);
}

export function applyFlags(state: State, e: Event, ctx: ApplyContext): void {
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
