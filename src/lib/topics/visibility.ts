// Topic visibility policies: the stored rows, their API forms (user_topics, legacy muted_topics),
// and the muting rule unread totals follow.
import type { Tx } from '../../store/store.js';
import { displayTopic } from '../../presenters/message.js';

export const VisibilityPolicy = { NONE: 0, MUTED: 1, UNMUTED: 2, FOLLOWED: 3 } as const;
export const VISIBILITY_POLICIES: readonly number[] = [0, 1, 2, 3];

export interface UserTopicEntry {
  stream_id: number;
  topic_name: string;
  last_updated: number;
  visibility_policy: number;
}

export interface TopicDisplay {
  allowEmptyTopic: boolean;
  emptyTopicDisplayName: string;
}

const byString = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The register and event order: channel, then lower-cased topic as shown (apply.ts sorts the same way). */
export const compareUserTopics = (a: UserTopicEntry, b: UserTopicEntry) => a.stream_id - b.stream_id || byString(a.topic_name.toLowerCase(), b.topic_name.toLowerCase());

/** The user's topics with a policy, as `user_topics` entries in register order. */
export async function userTopicEntries(tx: Tx, userId: number, display: TopicDisplay): Promise<UserTopicEntry[]> {
  const rows = await tx.selectFrom('user_topics').select(['stream_id', 'topic', 'last_updated', 'visibility_policy']).where('user_id', '=', userId).execute();
  return rows
    .map((r) => ({ stream_id: r.stream_id, topic_name: displayTopic(r.topic, display), last_updated: r.last_updated, visibility_policy: r.visibility_policy }))
    .sort(compareUserTopics);
}

/** The legacy `muted_topics` list: [channel name, topic, muted at] for each muted topic, in register order. */
export async function mutedTopicsList(tx: Tx, userId: number): Promise<[string, string, number][]> {
  const rows = await tx
    .selectFrom('user_topics as ut')
    .innerJoin('streams as s', 's.id', 'ut.stream_id')
    .select(['ut.stream_id', 'ut.topic', 'ut.topic_key', 'ut.last_updated', 's.name'])
    .where('ut.user_id', '=', userId)
    .where('ut.visibility_policy', '=', VisibilityPolicy.MUTED)
    .execute();
  rows.sort((a, b) => a.stream_id - b.stream_id || byString(a.topic_key, b.topic_key));
  return rows.map((r) => [r.name, r.topic, r.last_updated]);
}

/** What decides whether a channel message counts toward the user's unread total. */
export interface MuteContext {
  mutedStreams: Set<number>;
  /** `${stream_id}:${topic_key}` → policy. */
  policies: Map<string, number>;
}

export async function muteContext(tx: Tx, userId: number): Promise<MuteContext> {
  const [subs, topics] = await Promise.all([
    tx.selectFrom('subscriptions').select('stream_id').where('user_id', '=', userId).where('active', '=', 1).where('is_muted', '=', 1).execute(),
    tx.selectFrom('user_topics').select(['stream_id', 'topic_key', 'visibility_policy']).where('user_id', '=', userId).execute(),
  ]);
  return {
    mutedStreams: new Set(subs.map((s) => s.stream_id)),
    policies: new Map(topics.map((t) => [`${t.stream_id}:${t.topic_key}`, t.visibility_policy])),
  };
}

/**
 * Muted topics, and topics of muted channels unless unmuted or followed, do not count toward unread
 * totals (the spec's Subscription is_muted note).
 */
export function isTopicMuted(ctx: MuteContext, streamId: number, topic: string): boolean {
  const policy = ctx.policies.get(`${streamId}:${topic.toLowerCase()}`) ?? VisibilityPolicy.NONE;
  if (ctx.mutedStreams.has(streamId)) return policy !== VisibilityPolicy.UNMUTED && policy !== VisibilityPolicy.FOLLOWED;
  return policy === VisibilityPolicy.MUTED;
}
