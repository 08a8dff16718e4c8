// Subscriber queries in bulk: lists, counts, partial lists, and the channels a user can see.
import { sql } from 'kysely';
import type { Tx } from '../../store/store.js';
import type { Stream, Subscription, User } from '../../store/schema.js';
import { canSeeStream } from './access.js';

/** Channels with at least this many subscribers get partial lists under include_subscribers=partial. */
export const PARTIAL_SUBSCRIBERS_THRESHOLD = 250;

/**
 * Active subscribers (active users only) of each channel, sorted by user ID: one row per channel,
 * its IDs as text, from subscriptions_stream alone (user_active is the user's active state, kept
 * by actions/user-active.ts). A row per subscription joined to its user cost a fifth of register
 * in a 10,000-person organization (docs/performance.md, "Register").
 */
export async function subscribersByStream(tx: Tx, streamIds: number[]): Promise<Map<number, number[]>> {
  const out = new Map<number, number[]>();
  for (const id of streamIds) out.set(id, []);
  if (!streamIds.length) return out;
  // string_agg is group_concat on SQLite (3.44 and later), which reads the index in user order;
  // an ORDER BY inside it would cost SQLite a sorter, four times the query.
  const ids = sql<string>`string_agg(CAST(user_id AS text), ',')`;
  const rows = await tx
    .selectFrom('subscriptions')
    .select(['stream_id', ids.as('ids')])
    .where('stream_id', 'in', streamIds)
    .where('active', '=', 1)
    .where('user_active', '=', 1)
    .groupBy('stream_id')
    .execute();
  for (const r of rows) {
    const list = JSON.parse(`[${r.ids}]`) as number[];
    for (let i = 1; i < list.length; i++) {
      if (list[i] < list[i - 1]) {
        list.sort((a, b) => a - b);
        break;
      }
    }
    out.set(r.stream_id, list);
  }
  return out;
}

/**
 * Subscriber counts, counted the same way as subscribersByStream: every active subscription from
 * the index alone, less those of deactivated users (few, found through users_realm_active).
 * Joining each subscription to its user instead cost 6 ms of a register in a 1,000-person
 * organization with 100 channels.
 */
export async function subscriberCounts(tx: Tx, streams: Pick<Stream, 'id' | 'realm_id'>[]): Promise<Map<number, number>> {
  const out = new Map<number, number>();
  for (const s of streams) out.set(s.id, 0);
  if (!streams.length) return out;
  const streamIds = streams.map((s) => s.id);
  const realmIds = [...new Set(streams.map((s) => s.realm_id))];
  const countBy = (deactivatedOnly: boolean) => {
    let q = tx
      .selectFrom('subscriptions')
      .select(['stream_id', (eb) => eb.fn.countAll<number>().as('n')])
      .where('stream_id', 'in', streamIds)
      .where('active', '=', 1);
    if (deactivatedOnly) q = q.where('user_id', 'in', tx.selectFrom('users').select('id').where('realm_id', 'in', realmIds).where('is_active', '=', 0));
    return q.groupBy('stream_id').execute();
  };
  const [all, deactivated] = await Promise.all([countBy(false), countBy(true)]);
  for (const r of all) out.set(r.stream_id, Number(r.n));
  for (const r of deactivated) out.set(r.stream_id, out.get(r.stream_id)! - Number(r.n));
  return out;
}

/**
 * The partial list for a big channel: its bot subscribers. The spec also promises users active in
 * the last 14 days; Parley records no activity, so bots are all it can guarantee.
 */
export async function partialSubscribers(tx: Tx, all: number[]): Promise<number[]> {
  if (!all.length) return [];
  const bots = await tx.selectFrom('users').select('id').where('id', 'in', all).where('is_bot', '=', 1).orderBy('id').execute();
  return bots.map((b) => b.id);
}

/** Every subscription row of the user (active or not), keyed by channel ID. */
export async function userSubscriptionRows(tx: Tx, userId: number): Promise<Map<number, Subscription>> {
  const rows = await tx.selectFrom('subscriptions').selectAll().where('user_id', '=', userId).execute();
  return new Map(rows.map((r) => [r.stream_id, r]));
}

/** The realm's channels the user can see, sorted by ID, with the user's subscription row when any. */
export async function visibleStreams(tx: Tx, user: Pick<User, 'id' | 'role' | 'realm_id'>): Promise<{ stream: Stream; sub: Subscription | undefined }[]> {
  const [streams, subs] = await Promise.all([
    tx.selectFrom('streams').selectAll().where('realm_id', '=', user.realm_id).orderBy('id').execute(),
    userSubscriptionRows(tx, user.id),
  ]);
  const out: { stream: Stream; sub: Subscription | undefined }[] = [];
  for (const stream of streams) {
    const sub = subs.get(stream.id);
    if (canSeeStream(user, stream, sub?.active === 1)) out.push({ stream, sub });
  }
  return out;
}
