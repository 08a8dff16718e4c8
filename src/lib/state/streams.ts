// Register state for subscription (subscriptions, unsubscribed, never_subscribed) and stream (streams).
// Orders: every list is sorted by stream_id; subscriber lists by user ID. Objects are built by the
// same presenters as the stream create and subscription add events, so events keep state exact.
import type { StateContext, StateFetcher } from './context.js';
import type { Stream, Subscription } from '../../store/schema.js';
import { effectiveUserSettings } from '../../models/user-settings.js';
import { streamDicts } from '../streams/dicts.js';
import { PARTIAL_SUBSCRIBERS_THRESHOLD, partialSubscribers, subscribersByStream, visibleStreams } from '../streams/subscribers.js';
import { notificationDefaults, presentSubscription } from '../../presenters/subscription.js';

type Visible = { stream: Stream; sub: Subscription | undefined }[];

/** The channels a viewer sees: their visible channels, or the web-public ones for a spectator. */
async function viewerStreams(ctx: StateContext): Promise<Visible> {
  // Archived channels only for clients that declared archived_channels (the original, FL 315).
  const withArchived = ctx.opts.capabilities.archived_channels === true;
  if (ctx.user) return (await visibleStreams(ctx.tx, ctx.user)).filter((v) => withArchived || !v.stream.is_archived);
  const rows = await ctx.tx.selectFrom('streams').selectAll().where('realm_id', '=', ctx.realm.id).where('is_web_public', '=', 1).orderBy('id').execute();
  return rows.filter((stream) => withArchived || !stream.is_archived).map((stream) => ({ stream, sub: undefined }));
}

/**
 * The viewer's channels and their API objects, read once per register: the subscription and the
 * stream state both need them (half of a full register's channel work was reading them twice).
 * Keyed by the read transaction, which is one per register.
 */
const perRead = new WeakMap<object, Promise<{ visible: Visible; dicts: Awaited<ReturnType<typeof streamDicts>> }>>();

function channelsOf(ctx: StateContext): Promise<{ visible: Visible; dicts: Awaited<ReturnType<typeof streamDicts>> }> {
  let p = perRead.get(ctx.tx);
  if (!p) {
    p = (async () => {
      const visible = await viewerStreams(ctx);
      return { visible, dicts: await streamDicts(ctx.tx, visible.map((v) => v.stream)) };
    })();
    perRead.set(ctx.tx, p);
  }
  return p;
}

/** Subscriber fields for one channel under include_subscribers (true, false or partial). */
async function subscriberFields(ctx: StateContext, all: number[] | undefined): Promise<{ subscribers?: number[]; partialSubscribers?: number[] }> {
  const mode = ctx.opts.includeSubscribers;
  if (!mode || !all) return {};
  if (mode === 'partial' && all.length >= PARTIAL_SUBSCRIBERS_THRESHOLD) return { partialSubscribers: await partialSubscribers(ctx.tx, all) };
  return { subscribers: all };
}

export const subscriptionState: StateFetcher = {
  types: ['subscription'],
  async fetch(ctx) {
    const { visible, dicts } = await channelsOf(ctx);
    const subscribers = ctx.opts.includeSubscribers && ctx.user ? await subscribersByStream(ctx.tx, visible.map((v) => v.stream.id)) : new Map<number, number[]>();
    // Clients without notification_settings_null get the user's defaults in place of nulls.
    const defaults = ctx.user && ctx.opts.capabilities.notification_settings_null !== true ? notificationDefaults(effectiveUserSettings(ctx.user.settings)) : null;
    const subscriptions: Record<string, unknown>[] = [];
    const unsubscribed: Record<string, unknown>[] = [];
    const neverSubscribed: Record<string, unknown>[] = [];
    for (const { stream, sub } of visible) {
      const dict = dicts.get(stream.id)!;
      const fields = await subscriberFields(ctx, subscribers.get(stream.id));
      if (sub) {
        (sub.active ? subscriptions : unsubscribed).push(presentSubscription(dict, sub, { ...fields, notificationDefaults: defaults }));
      } else {
        const entry: Record<string, unknown> = { ...dict };
        if (fields.subscribers) entry.subscribers = fields.subscribers;
        if (fields.partialSubscribers) entry.partial_subscribers = fields.partialSubscribers;
        neverSubscribed.push(entry);
      }
    }
    return { subscriptions, unsubscribed, never_subscribed: neverSubscribed };
  },
};

export const streamState: StateFetcher = {
  types: ['stream'],
  async fetch(ctx) {
    const { visible, dicts } = await channelsOf(ctx);
    return { streams: visible.map((v) => dicts.get(v.stream.id)!) };
  },
};

export const streamStates: StateFetcher[] = [subscriptionState, streamState];
