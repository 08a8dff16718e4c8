// What travels from an action to the event queues: a notice (one event, its recipients, its commit stamp).
import type { CommitStamp } from '../store/store.js';

export type EventBody = { type: string; [key: string]: unknown };

export interface Notice {
  realmId: number;
  /** The commit that made this event true; null for events that change no stored state (typing, heartbeat). */
  stamp: CommitStamp | null;
  event: EventBody;
  /** Users whose queues receive the event. */
  users: number[];
  /** Message events: each recipient's flags. */
  flags?: Record<number, string[]>;
  /** Message events to a public channel: also for all_public_streams queues of the realm (flags ["read"] for non-recipients... per the original, none). */
  publicStreamId?: number;
  /** Message events: the sender's queue gets local_message_id when it sent the message. */
  senderQueueId?: string;
  localId?: string;
  /** Only queues whose client declared this capability get the event (channel typing notifications). */
  requiresCapability?: string;
  /** Queues whose client declared this capability do not get the event (the "Unknown user" placeholder adds). */
  unlessCapability?: string;
  /** Queues whose client lacks `capability` get `events` instead of `event` (legacy forms; none when empty). */
  withoutCapability?: { capability: string; events: EventBody[] };
  /** Its place in the delivery order (event-log.ts): log row id × NOTICES_PER_ROW + index in the row. */
  pos?: number;
  /** In the event log only: a message notice's users are that message's user_messages rows (not copied into the row). */
  recipientsOf?: number;
}

/** A notice as an action gives it: the realm, stamp and position come from its commit and log row. */
export type Outgoing = Omit<Notice, 'stamp' | 'realmId' | 'pos'>;

/** Every event type Parley emits; the events-consistency suite must cover each one. */
export const EVENT_TYPES = [
  'message',
  'update_message',
  'delete_message',
  'reaction',
  'subscription',
  'stream',
  'realm_user',
  'realm_bot',
  'user_group',
  'update_message_flags',
  'heartbeat',
  'user_settings',
  'typing',
  'typing_edit_message',
  'user_topic',
  'muted_topics',
  'drafts',
  'saved_snippets',
  'navigation_view',
  'alert_words',
  'reminders',
  'presence',
  'realm_emoji',
  'realm_linkifiers',
  'realm_export',
  'has_videoprovider_token',
  'has_webex_token',
  'device',
  'custom_profile_fields',
  'user_status',
  'muted_users',
  'scheduled_messages',
  'attachment',
  'invites_changed',
  'default_streams',
  'channel_folder',
  'realm_domains',
  'realm_playgrounds',
  'realm_user_settings_defaults',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];
