// Reads behind the channel views: a user's subscriptions, channel lists for GET /streams, topics.
import type { Tx } from '../../store/store.js';
import type { Realm, Stream, User } from '../../store/schema.js';
import { Role } from '../../models/roles.js';
import { canAccessContent } from './access.js';
import { streamDicts } from './dicts.js';
import { PARTIAL_SUBSCRIBERS_THRESHOLD, partialSubscribers, subscribersByStream, visibleStreams } from './subscribers.js';
import { presentSubscription } from '../../presenters/subscription.js';

/** The user's active subscriptions, sorted by channel ID (as in register). */
export async function userSubscriptions(tx: Tx, user: User, includeSubscribers: boolean | 'partial'): Promise<Record<string, unknown>[]> {
  const rows = (await visibleStreams(tx, user)).filter((v) => v.sub?.active === 1);
  const dicts = await streamDicts(tx, rows.map((r) => r.stream));
  const subs = includeSubscribers ? await subscribersByStream(tx, rows.map((r) => r.stream.id)) : new Map<number, number[]>();
  const out: Record<string, unknown>[] = [];
  for (const { stream, sub } of rows) {
    const all = subs.get(stream.id);
    const big = includeSubscribers === 'partial' && all && all.length >= PARTIAL_SUBSCRIBERS_THRESHOLD;
    out.push(presentSubscription(dicts.get(stream.id)!, sub!, big ? { partialSubscribers: await partialSubscribers(tx, all) } : { subscribers: all }));
  }
  return out;
}

export interface StreamListOptions {
  includePublic: boolean;
  includeWebPublic: boolean;
  includeSubscribed: boolean;
  includeAll: boolean;
  includeDefault: boolean;
  includeOwnerSubscribed: boolean;
  includeCanAccessContent: boolean;
  excludeArchived: boolean;
}

/** GET /streams: the union of the requested categories, among channels the user can see, by name. */
export async function listStreams(tx: Tx, realm: Realm, user: User, o: StreamListOptions): Promise<Record<string, unknown>[]> {
  const visible = await visibleStreams(tx, user);
  const defaults = new Set(
    (await tx.selectFrom('default_streams').select('stream_id').where('realm_id', '=', realm.id).execute()).map((r) => r.stream_id),
  );
  let ownerSubscribed = new Set<number>();
  if (o.includeOwnerSubscribed && user.is_bot && user.bot_owner_id !== null) {
    const rows = await tx.selectFrom('subscriptions').select('stream_id').where('user_id', '=', user.bot_owner_id).where('active', '=', 1).execute();
    ownerSubscribed = new Set(rows.map((r) => r.stream_id));
  }
  const guest = user.role === Role.GUEST;
  const picked: Stream[] = [];
  for (const { stream, sub } of visible) {
    const subscribed = sub?.active === 1;
    if (o.excludeArchived && stream.is_archived) continue;
    // Guests see only the channels they are subscribed to, whatever they ask for.
    if (guest && !subscribed) continue;
    const want =
      o.includeAll ||
      (o.includePublic && !stream.invite_only) ||
      (o.includeWebPublic && stream.is_web_public === 1) ||
      (o.includeSubscribed && subscribed) ||
      (o.includeDefault && defaults.has(stream.id)) ||
      ownerSubscribed.has(stream.id) ||
      (o.includeCanAccessContent && canAccessContent(user, stream, subscribed));
    if (want) picked.push(stream);
  }
  const dicts = await streamDicts(tx, picked);
  const out = picked.map((s) => {
    const d = dicts.get(s.id)!;
    return o.includeDefault ? { ...d, is_default: defaults.has(s.id) } : d;
  });
  return out.sort((a, b) => ((a.name as string) < (b.name as string) ? -1 : (a.name as string) > (b.name as string) ? 1 : 0));
}

/** Topics of a channel the user may read, newest first; protected history only where they have rows. */
export async function streamTopics(tx: Tx, user: User, stream: Stream): Promise<{ name: string; max_id: number }[]> {
  let q = tx
    .selectFrom('messages')
    .select(['messages.topic_key', (eb) => eb.fn.max<number>('messages.id').as('max_id')])
    .where('messages.recipient_id', '=', stream.recipient_id);
  if (stream.invite_only && !stream.history_public_to_subscribers) {
    q = q.where((eb) => eb.exists(eb.selectFrom('user_messages').select('user_messages.message_id').whereRef('user_messages.message_id', '=', 'messages.id').where('user_messages.user_id', '=', user.id)));
  }
  const groups = await q.groupBy('messages.topic_key').execute();
  if (!groups.length) return [];
  const ids = groups.map((g) => Number(g.max_id));
  // The topic's name is spelled as in its latest message.
  const names = new Map<number, string>();
  for (let i = 0; i < ids.length; i += 500) {
    const rows = await tx.selectFrom('messages').select(['id', 'topic']).where('id', 'in', ids.slice(i, i + 500)).execute();
    for (const r of rows) names.set(r.id, r.topic);
  }
  return ids.sort((a, b) => b - a).map((id) => ({ name: names.get(id) ?? '', max_id: id }));
}
