// Applies reminder, presence, custom-emoji and topic-visibility events, and recounts unread totals under mutes.
import type { Event, State } from './apply-util.js';

// ---- reminders, presence, custom emoji ----

export function applyReminders(state: State, e: Event): void {
  if (!state.reminders) return;
  if (e.op === 'add') {
    const ids = new Set(e.reminders.map((r: any) => r.reminder_id));
    state.reminders = [...state.reminders.filter((r: any) => !ids.has(r.reminder_id)), ...e.reminders];
    state.reminders.sort((a: any, b: any) => a.scheduled_delivery_timestamp - b.scheduled_delivery_timestamp || a.reminder_id - b.reminder_id);
  } else if (e.op === 'remove') {
    state.reminders = state.reminders.filter((r: any) => r.reminder_id !== e.reminder_id);
  }
}

/** Modern events carry `presences` keyed by user ID; legacy ones one user's per-client data keyed by email. */
export function applyPresence(state: State, e: Event): void {
  if (!state.presences) return;
  if (e.presences) {
    for (const [id, p] of Object.entries(e.presences)) state.presences[id] = p;
    return;
  }
  const website = e.presence?.website;
  if (!website) return;
  state.presences[e.email] = { website, aggregated: { client: website.client, status: website.status, timestamp: website.timestamp } };
}

export function applyRealmEmoji(state: State, e: Event): void {
  if (!state.realm_emoji) return;
  if (e.op === 'update') state.realm_emoji = e.realm_emoji;
  else if (e.op === 'add') state.realm_emoji[e.emoji.id] = e.emoji;
  else if (e.op === 'update_one' && state.realm_emoji[e.emoji_id]) Object.assign(state.realm_emoji[e.emoji_id], e.data);
}

// ---- topic visibility ----

const topicOrder = (a: any, b: any) => a.stream_id - b.stream_id || (a.topic_name.toLowerCase() < b.topic_name.toLowerCase() ? -1 : a.topic_name.toLowerCase() > b.topic_name.toLowerCase() ? 1 : 0);

/** Topics match case-insensitively; policy 0 (none) removes the entry. */
export function applyUserTopic(state: State, e: Event): void {
  if (!state.user_topics) return;
  const key = String(e.topic_name).toLowerCase();
  const list = (state.user_topics as any[]).filter((t) => !(t.stream_id === e.stream_id && t.topic_name.toLowerCase() === key));
  if (e.visibility_policy !== 0) list.push({ stream_id: e.stream_id, topic_name: e.topic_name, last_updated: e.last_updated, visibility_policy: e.visibility_policy });
  state.user_topics = list.sort(topicOrder);
}

/**
 * unread_msgs.count leaves out muted topics and topics of muted channels that are not unmuted or
 * followed (policies 2, 3), as the server does; it uses the subscriptions and user_topics the state holds.
 */
export function recountUnread(state: State): void {
  const unread = state.unread_msgs;
  const muted = new Set<number>((state.subscriptions ?? []).filter((s: any) => s.is_muted).map((s: any) => s.stream_id));
  const policies = new Map<string, number>((state.user_topics ?? []).map((t: any) => [`${t.stream_id}:${t.topic_name.toLowerCase()}`, t.visibility_policy]));
  let count = 0;
  for (const key of ['pms', 'huddles']) for (const entry of unread[key]) count += entry.unread_message_ids.length;
  for (const entry of unread.streams) {
    const policy = policies.get(`${entry.stream_id}:${String(entry.topic).toLowerCase()}`) ?? 0;
    const isMuted = muted.has(entry.stream_id) ? policy !== 2 && policy !== 3 : policy === 1;
    if (!isMuted) count += entry.unread_message_ids.length;
  }
  unread.count = count;
}
