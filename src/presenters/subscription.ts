// The one place a subscription (channel object plus the user's own settings for it) is built, for
// GET /users/me/subscriptions, register and subscription add events alike.
import type { Subscription } from '../store/schema.js';

export const NOTIFICATION_FIELDS = ['desktop_notifications', 'email_notifications', 'push_notifications', 'audible_notifications', 'wildcard_mentions_notify'] as const;

/** The user-level setting each per-channel notification setting inherits from when null. */
export const NOTIFICATION_DEFAULT_SETTING: Record<(typeof NOTIFICATION_FIELDS)[number], string> = {
  desktop_notifications: 'enable_stream_desktop_notifications',
  email_notifications: 'enable_stream_email_notifications',
  push_notifications: 'enable_stream_push_notifications',
  audible_notifications: 'enable_stream_audible_notifications',
  wildcard_mentions_notify: 'wildcard_mentions_notify',
};

export interface SubscriptionPresentOptions {
  /** Full subscriber list, when requested. */
  subscribers?: number[];
  /** With include_subscribers=partial on big channels: the subset sent instead of subscribers. */
  partialSubscribers?: number[];
  /** For clients without notification_settings_null: the user's defaults replace nulls. */
  notificationDefaults?: Record<string, boolean> | null;
}

const bool = (v: number | null): boolean | null => (v === null ? null : v === 1);

export function presentSubscription(streamDict: Record<string, unknown>, sub: Subscription, opts: SubscriptionPresentOptions = {}): Record<string, unknown> {
  const out: Record<string, unknown> = {
    ...streamDict,
    color: sub.color,
    is_muted: sub.is_muted === 1,
    in_home_view: sub.is_muted !== 1,
    pin_to_top: sub.pin_to_top === 1,
  };
  for (const f of NOTIFICATION_FIELDS) {
    const v = bool(sub[f]);
    out[f] = v === null && opts.notificationDefaults ? opts.notificationDefaults[f] : v;
  }
  if (opts.subscribers) out.subscribers = opts.subscribers;
  if (opts.partialSubscribers) out.partial_subscribers = opts.partialSubscribers;
  return out;
}

/** The per-channel notification values a null stands for, from the user's effective settings. */
export function notificationDefaults(settings: Record<string, unknown>): Record<string, boolean> {
  const out: Record<string, boolean> = {};
  for (const f of NOTIFICATION_FIELDS) out[f] = settings[NOTIFICATION_DEFAULT_SETTING[f]] === true;
  return out;
}

/** Copies of subscription objects with null notification settings replaced by the defaults. */
export function fillNotificationDefaults(subs: Record<string, unknown>[], defaults: Record<string, boolean>): Record<string, unknown>[] {
  return subs.map((s) => {
    const out = { ...s };
    for (const f of NOTIFICATION_FIELDS) if (out[f] === null) out[f] = defaults[f];
    return out;
  });
}
