// Register state for messages: max_message_id, unread_msgs, starred_messages and
// recent_private_conversations, in orders a client can keep up to date from events (see each).
import { sql, type SqlBool } from 'kysely';
import type { StateContext, StateFetcher } from './context.js';
import { FLAG_BITS } from '../../models/flags.js';
import { MAX_UNREAD_MESSAGES } from '../../models/limits.js';
import { dmParticipantsByRecipient } from '../messages/recipients.js';
import { maxMessageIdFor } from '../messages/unread.js';
import { unreadSummary } from '../messages/unread-summary.js';
import { displayTopic } from '../../presenters/message.js';
import { emptyTopicDisplayName } from '../realm-settings.js';
import { isTopicMuted, muteContext } from '../topics/visibility.js';

const RECENT_DM_LIMIT = 1000;
const byNumber = (a: number, b: number) => a - b;
const byString = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Event types the request asked for (register passes its whole input as the options). */
function wanted(ctx: StateContext): Set<string> | null {
  const o = ctx.opts as { fetchEventTypes?: string[] | null; eventTypes?: string[] | null };
  const list = o.fetchEventTypes ?? o.eventTypes ?? null;
  return list ? new Set(list) : null;
}

const maxMessageState: StateFetcher = {
  types: ['message'],
  async fetch({ tx, user }) {
    if (!user) return { max_message_id: -1 };
    return { max_message_id: await maxMessageIdFor(tx, user.realm_id, user.id) };
  },
};

/**
 * unread_msgs (needs both `message` and `update_message_flags`). Orders: every unread_message_ids
 * list ascending; streams by stream_id, then topic (exact stored text, code-unit order); pms by
 * other_user_id; huddles by user_ids_string; mentions ascending. count is every listed message
 * except those in muted topics and muted channels (unless the topic is unmuted or followed).
 */
const unreadState: StateFetcher = {
  types: ['update_message_flags'],
  async fetch(ctx) {
    const { tx, user, realm, opts } = ctx;
    const w = wanted(ctx);
    if (!user || (w && !w.has('message'))) return {};
    const summary = await unreadSummary(tx, ctx.app.store.dialect, user, MAX_UNREAD_MESSAGES);
    const participants = await dmParticipantsByRecipient(
      tx,
      summary.direct.map((r) => r.recipient_id),
    );
    const allowEmpty = opts.capabilities.empty_topic_name === true;
    const emptyName = emptyTopicDisplayName(realm);
    const mutes = await muteContext(tx, user.id);
    let count = summary.direct.length;
    // Grouped by stored topic; two stored topics can show as one ('' as the empty-topic name).
    const streams = new Map<string, { stream_id: number; topic: string; unread_message_ids: number[] }>();
    for (const g of summary.topics) {
      if (!isTopicMuted(mutes, g.streamId, g.topic)) count += g.ids.length;
      const topic = displayTopic(g.topic, { allowEmptyTopic: allowEmpty, emptyTopicDisplayName: emptyName });
      const key = `${g.streamId}\u0000${topic}`;
      const e = streams.get(key);
      if (!e) streams.set(key, { stream_id: g.streamId, topic, unread_message_ids: g.ids });
      else e.unread_message_ids = [...e.unread_message_ids, ...g.ids].sort(byNumber);
    }
    const pms = new Map<number, number[]>();
    const huddles = new Map<string, number[]>();
    for (const r of summary.direct) {
      const ids = participants.get(r.recipient_id) ?? [user.id];
      if (ids.length <= 2) {
        const other = ids.find((id) => id !== user.id) ?? user.id;
        const list = pms.get(other) ?? [];
        list.push(r.message_id);
        pms.set(other, list);
      } else {
        const key = [...ids].sort(byNumber).join(',');
        const list = huddles.get(key) ?? [];
        list.push(r.message_id);
        huddles.set(key, list);
      }
    }
    return {
      unread_msgs: {
        count,
        pms: [...pms.entries()].sort((a, b) => a[0] - b[0]).map(([other, ids]) => ({ other_user_id: other, sender_id: other, unread_message_ids: ids })),
        streams: [...streams.values()].sort((a, b) => a.stream_id - b.stream_id || byString(a.topic, b.topic)),
        huddles: [...huddles.entries()].sort((a, b) => byString(a[0], b[0])).map(([key, ids]) => ({ user_ids_string: key, unread_message_ids: ids })),
        mentions: summary.mentions,
        old_unreads_missing: summary.oldMissing,
      },
    };
  },
};

/** starred_messages: IDs ascending. */
const starredState: StateFetcher = {
  types: ['starred_messages'],
  async fetch({ tx, user }) {
    if (!user) return { starred_messages: [] };
    const rows = await tx
      .selectFrom('user_messages as um')
      .select('um.message_id')
      .where('um.user_id', '=', user.id)
      .where(sql<SqlBool>`(um.flags & ${sql.lit(FLAG_BITS.starred)}) <> 0`)
      .orderBy('um.message_id')
      .execute();
    return { starred_messages: rows.map((r) => r.message_id) };
  },
};

/**
 * recent_private_conversations: from the user's 1000 newest direct messages, one entry per
 * conversation with its newest ID and the other participants ascending ([] for oneself); newest first.
 */
const recentDmState: StateFetcher = {
  types: ['recent_private_conversations'],
  async fetch({ tx, user }) {
    if (!user) return { recent_private_conversations: [] };
    const rows = await tx
      .selectFrom('user_messages as um')
      .innerJoin('messages as m', 'm.id', 'um.message_id')
      .select(['um.message_id', 'm.recipient_id'])
      .where('um.user_id', '=', user.id)
      .where(sql<SqlBool>`(um.flags & ${sql.lit(FLAG_BITS.is_private)}) <> 0`)
      .orderBy('um.message_id', 'desc')
      .limit(RECENT_DM_LIMIT)
      .execute();
    const newest = new Map<number, number>();
    for (const r of rows) if (!newest.has(r.recipient_id)) newest.set(r.recipient_id, r.message_id);
    const participants = await dmParticipantsByRecipient(tx, [...newest.keys()]);
    const list = [...newest.entries()].map(([recipient, max]) => ({
      max_message_id: max,
      user_ids: (participants.get(recipient) ?? []).filter((id) => id !== user.id).sort(byNumber),
    }));
    list.sort((a, b) => b.max_message_id - a.max_message_id);
    return { recent_private_conversations: list };
  },
};

export const messageStates: StateFetcher[] = [maxMessageState, unreadState, starredState, recentDmState];
