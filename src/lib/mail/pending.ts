// After a send commits: records which recipients may get a missed-message email for it (email_pending).
import type { AppContext } from '../../context.js';
import { FLAG_BITS } from '../../models/flags.js';
import { channelWatchers, emailWatchers, topicWatchers, type EmailWatchers } from './watchers.js';

/** Why a message may be emailed, strongest first (a recipient's row keeps the strongest reason). */
export const TRIGGERS = ['private', 'mentioned', 'wildcard_mentioned', 'followed_topic', 'stream_email'] as const;
export type Trigger = (typeof TRIGGERS)[number];

export interface SentMessage {
  realmId: number;
  id: number;
  senderId: number;
  /** Null for a direct message. */
  streamId: number | null;
  topicKey: string;
  /** Each recipient's flags, as the send wrote them. */
  bits: Map<number, number>;
  /** Whether any recipient may carry a mention flag (false lets the send skip looking). */
  mayMention: boolean;
}

const MENTION = FLAG_BITS.mentioned;
const WILDCARD = FLAG_BITS.stream_wildcard_mentioned | FLAG_BITS.topic_wildcard_mentioned;

/**
 * The candidates of one message, each with its strongest reason. Which of them really get mail
 * (settings, muting, presence, read state) is decided by the worker when the batch is due, so the
 * send pays only for this: nothing but two map lookups for a plain channel message.
 */
export function emailCandidates(w: EmailWatchers, m: SentMessage): Map<number, Trigger> {
  const out = new Map<number, Trigger>();
  const consider = (userId: number, t: Trigger) => {
    if (userId === m.senderId || !m.bits.has(userId)) return;
    const had = out.get(userId);
    if (had === undefined || TRIGGERS.indexOf(t) < TRIGGERS.indexOf(had)) out.set(userId, t);
  };
  if (m.streamId === null) {
    for (const userId of m.bits.keys()) consider(userId, 'private');
    return out;
  }
  if (m.mayMention) {
    for (const [userId, b] of m.bits) {
      if (b & MENTION) consider(userId, 'mentioned');
      else if (b & WILDCARD) consider(userId, 'wildcard_mentioned');
    }
  }
  for (const userId of topicWatchers(w, m.streamId, m.topicKey)) consider(userId, 'followed_topic');
  for (const userId of channelWatchers(w, m.streamId)) consider(userId, 'stream_email');
  return out;
}

/**
 * Called right after the send's commit (never awaited by the send's answer). A failure loses only
 * these emails, and is logged.
 */
export function noteSentForEmail(app: AppContext, m: SentMessage): void {
  const w = emailWatchers(app, m.realmId);
  if (w instanceof Promise) {
    w.then((loaded) => enqueue(app, loaded, m)).catch((err: unknown) => app.log.error({ err }, 'email notifications: enqueue failed'));
    return;
  }
  // The common case: a channel message nobody watches by email and no mention, with no promise made.
  if (m.streamId !== null && !m.mayMention && !w.channels.has(m.streamId) && !w.followed.size) return;
  enqueue(app, w, m).catch((err: unknown) => app.log.error({ err }, 'email notifications: enqueue failed'));
}

async function enqueue(app: AppContext, w: EmailWatchers, m: SentMessage): Promise<void> {
  const candidates = emailCandidates(w, m);
  if (!candidates.size) return;
  const now = app.clock.now();
  const rows = [...candidates].map(([userId, trigger]) => ({ realm_id: m.realmId, user_id: userId, message_id: m.id, trigger, created_at: now, claim: null, claimed_until: null }));
  await app.store.write((tx) =>
    tx
      .insertInto('email_pending')
      .values(rows)
      .onConflict((oc) => oc.columns(['user_id', 'message_id']).doNothing())
      .execute(),
  );
}
