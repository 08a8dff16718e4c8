// Per organization, in memory on each node: who wants email for every message of a channel or followed topic.
import type { AppContext } from '../../context.js';
import type { EventBus } from '../../events/bus.js';
import { parseStoredSettings } from '../../models/user-settings.js';
import { VisibilityPolicy } from '../topics/visibility.js';

/**
 * The send path asks this, without a query, whether a channel message may need an email to anyone
 * beyond its mentions: the common answer is "nobody" (channel email notifications are off by
 * default). Members may be stale the other way (unsubscribed, deactivated since): the worker checks
 * each candidate again. Every change that could add a member calls emailWatchersChanged.
 */
export interface EmailWatchers {
  /** Channel ID → users whose channel email notifications are on there. */
  channels: Map<number, number[]>;
  /** `${channelId}\n${topic_key}` → users following that topic with followed-topic email on. */
  followed: Map<string, number[]>;
}

const EMPTY: number[] = [];

interface State {
  values: Map<number, EmailWatchers>;
  loading: Map<number, Promise<EmailWatchers>>;
  epoch: number;
}
const byBus = new WeakMap<EventBus, State>();

function stateOf(bus: EventBus): State {
  let s = byBus.get(bus);
  if (!s) {
    const state: State = { values: new Map(), loading: new Map(), epoch: 0 };
    bus.subscribeControl((msg) => {
      // A personal setting changed (settings publish user_changed): rare, so every organization reloads.
      if (msg.type === 'user_changed') dropAll(state);
      else if (msg.type === 'email_watchers_changed' || msg.type === 'user_deactivated') dropAll(state, 'realmId' in msg ? msg.realmId : undefined);
    });
    byBus.set(bus, (s = state));
  }
  return s;
}

function dropAll(s: State, realmId?: number): void {
  s.epoch++;
  if (realmId === undefined) {
    s.values.clear();
    s.loading.clear();
  } else {
    s.values.delete(realmId);
    s.loading.delete(realmId);
  }
}

/** The organization's watchers: from memory after the first send (synchronous when cached). */
export function emailWatchers(app: AppContext, realmId: number): EmailWatchers | Promise<EmailWatchers> {
  const s = stateOf(app.bus);
  const hit = s.values.get(realmId);
  if (hit) return hit;
  let pending = s.loading.get(realmId);
  if (!pending) {
    const epoch = s.epoch;
    pending = loadWatchers(app, realmId).then(
      (v) => {
        if (epoch === s.epoch) s.values.set(realmId, v);
        s.loading.delete(realmId);
        return v;
      },
      (err: unknown) => {
        s.loading.delete(realmId);
        throw err;
      },
    );
    s.loading.set(realmId, pending);
  }
  return pending;
}

/** Call after committing a change of subscriptions, their email setting or followed topics. */
export function emailWatchersChanged(app: AppContext, realmId: number): void {
  dropAll(stateOf(app.bus), realmId);
  app.bus.publishControl({ type: 'email_watchers_changed', realmId });
}

export const watcherKey = (streamId: number, topicKey: string): string => `${streamId}\n${topicKey}`;

export function channelWatchers(w: EmailWatchers, streamId: number): number[] {
  return w.channels.get(streamId) ?? EMPTY;
}

export function topicWatchers(w: EmailWatchers, streamId: number, topicKey: string): number[] {
  return w.followed.size ? (w.followed.get(watcherKey(streamId, topicKey)) ?? EMPTY) : EMPTY;
}

async function loadWatchers(app: AppContext, realmId: number): Promise<EmailWatchers> {
  const db = app.store.db;
  const out: EmailWatchers = { channels: new Map(), followed: new Map() };
  const add = <K>(m: Map<K, number[]>, k: K, userId: number) => {
    const list = m.get(k);
    if (list) list.push(userId);
    else m.set(k, [userId]);
  };
  // Users who turned the channel default on (stored only when it differs from false).
  const defaultsOn = new Set<number>();
  const followedOff = new Set<number>();
  const edited = await db
    .selectFrom('users')
    .select(['id', 'settings'])
    .where('realm_id', '=', realmId)
    .where('is_active', '=', 1)
    .where((eb) => eb.or([eb('settings', 'like', '%enable_stream_email_notifications%'), eb('settings', 'like', '%enable_followed_topic_email_notifications%')]))
    .execute();
  for (const u of edited) {
    const v = parseStoredSettings(u.settings).values;
    if (v.enable_stream_email_notifications === true) defaultsOn.add(u.id);
    if (v.enable_followed_topic_email_notifications === false) followedOff.add(u.id);
  }
  const subs = await db
    .selectFrom('subscriptions as s')
    .innerJoin('streams as st', 'st.id', 's.stream_id')
    .select(['s.stream_id', 's.user_id', 's.email_notifications'])
    .where('st.realm_id', '=', realmId)
    .where('s.active', '=', 1)
    .where('s.user_active', '=', 1)
    .where((eb) => {
      const on = eb('s.email_notifications', '=', 1);
      return defaultsOn.size ? eb.or([on, eb.and([eb('s.email_notifications', 'is', null), eb('s.user_id', 'in', [...defaultsOn])])]) : on;
    })
    .execute();
  for (const r of subs) add(out.channels, r.stream_id, r.user_id);
  const follows = await db
    .selectFrom('user_topics as ut')
    .innerJoin('users as u', 'u.id', 'ut.user_id')
    .select(['ut.stream_id', 'ut.topic_key', 'ut.user_id'])
    .where('u.realm_id', '=', realmId)
    .where('u.is_active', '=', 1)
    .where('ut.visibility_policy', '=', VisibilityPolicy.FOLLOWED)
    .execute();
  for (const r of follows) if (!followedOff.has(r.user_id)) add(out.followed, watcherKey(r.stream_id, r.topic_key), r.user_id);
  return out;
}
