// The organization settings PATCH /realm may change: one row per setting (type, bounds, who may change it, event form).
import { REALM_GROUP_SETTINGS } from './realm-settings.js';
import { LANGUAGES } from './user-settings.js';

/**
 * How a setting's value is sent and checked:
 * - bool: a boolean; str: text up to maxLength;
 * - int: an integer in [min, max] (invalid: the error text for one outside);
 * - limit: JSON, a positive integer or one of the `special` words (mapped to the stored value);
 * - words / codes: one of the listed strings / integers, else `invalid` (with {value});
 * - group: a group-setting change request {new, old?};
 * - channel: a channel's ID (private ones only where `private`), or -1 for none;
 * - auth: the authentication methods, name → enabled.
 */
export type SettingKind =
  | { kind: 'bool' }
  | { kind: 'str'; maxLength: number }
  | { kind: 'int'; min: number; max: number; invalid?: string }
  | { kind: 'limit'; special: Record<string, number | null> }
  | { kind: 'words'; values: readonly string[]; invalid: string }
  | { kind: 'codes'; values: readonly number[]; invalid: string }
  | { kind: 'group' }
  | { kind: 'channel'; private?: true }
  | { kind: 'auth' };

export type RealmSettingProp = SettingKind & {
  /** Only organization owners may change it (administrators get "Must be an organization owner"). */
  owner?: true;
  /** Sent as `op: update_dict` (property "default", data {name: value}) rather than `op: update`, as the original does. */
  dict?: true;
  /** Kept in a column of the realms row rather than in its settings JSON. */
  column?: true;
};

/** Organization types a client may pick (the original's ids). */
export const ORG_TYPES = [0, 10, 20, 30, 35, 40, 50, 60, 70, 80, 90, 100, 1000] as const;
/** Video call providers: 0 none, 1 Jitsi Meet-style meeting links (the only kind this server creates). */
export const VIDEO_CHAT_PROVIDERS = [0, 1] as const;
/** GIF ratings: 0 disabled, then Y, G, PG, PG-13, R. */
export const GIF_RATINGS = [0, 1, 2, 3, 4, 5] as const;
export const MAX_REALM_NAME_LENGTH = 40;
export const MAX_REALM_DESCRIPTION_LENGTH = 1000;
/** The authentication methods this server offers; only password sign-in exists. */
export const AUTHENTICATION_METHODS = ['password'] as const;

const bool = { kind: 'bool' } as const;
const timeLimit = { kind: 'limit', special: { unlimited: null } } as const;

const plain: Record<string, RealmSettingProp> = {
  name: { kind: 'str', maxLength: MAX_REALM_NAME_LENGTH, column: true },
  description: { kind: 'str', maxLength: MAX_REALM_DESCRIPTION_LENGTH, column: true },
  allow_edit_history: bool,
  allow_message_editing: { ...bool, dict: true },
  avatar_changes_disabled: bool,
  default_code_block_language: { kind: 'str', maxLength: 100 },
  default_language: { kind: 'words', values: Object.keys(LANGUAGES), invalid: "Invalid language '{value}'" },
  digest_emails_enabled: bool,
  digest_weekday: { kind: 'int', min: 0, max: 6, invalid: 'Invalid digest_weekday' },
  disallow_disposable_email_addresses: bool,
  email_changes_disabled: bool,
  emails_restricted_to_domains: bool,
  enable_guest_user_dm_warning: bool,
  enable_guest_user_indicator: bool,
  enable_read_receipts: bool,
  enable_spectator_access: bool,
  gif_rating_policy: { kind: 'codes', values: GIF_RATINGS, invalid: 'Invalid gif_rating_policy {value}' },
  inline_image_preview: bool,
  inline_url_embed_preview: bool,
  invite_required: bool,
  mandatory_topics: bool,
  message_content_allowed_in_email_notifications: bool,
  message_content_delete_limit_seconds: timeLimit,
  message_content_edit_limit_seconds: { ...timeLimit, dict: true },
  message_edit_history_visibility_policy: { kind: 'words', values: ['all', 'moves', 'none'], invalid: 'Invalid message_edit_history_visibility_policy' },
  message_retention_days: { kind: 'limit', special: { unlimited: -1 }, owner: true },
  moderation_request_channel_id: { kind: 'channel', private: true },
  new_stream_announcements_stream_id: { kind: 'channel' },
  signup_announcements_stream_id: { kind: 'channel' },
  zulip_update_announcements_stream_id: { kind: 'channel' },
  welcome_message_custom_text: { kind: 'str', maxLength: 8000 },
  media_preview_size: { kind: 'codes', values: [100, 150, 200], invalid: 'Invalid media_preview_size {value}' },
  require_e2ee_push_notifications: bool,
  send_channel_events_messages: bool,
  move_messages_between_streams_limit_seconds: timeLimit,
  move_messages_within_stream_limit_seconds: timeLimit,
  name_changes_disabled: bool,
  org_type: { kind: 'codes', values: ORG_TYPES, invalid: 'Invalid org_type {value}' },
  require_unique_names: bool,
  send_welcome_emails: bool,
  topics_policy: { kind: 'words', values: ['allow_empty_topic', 'disable_empty_topic'], invalid: 'Invalid topics_policy' },
  video_chat_provider: { kind: 'codes', values: VIDEO_CHAT_PROVIDERS, invalid: 'Invalid video_chat_provider {value}' },
  waiting_period_threshold: { kind: 'int', min: 0, max: 2147483647 },
  want_advertise_in_communities_directory: bool,
  authentication_methods: { kind: 'auth', owner: true, dict: true },
};

/** Group settings the original lets only owners change: they decide who manages groups and billing. */
const OWNER_GROUP_SETTINGS = new Set(['can_create_groups', 'can_manage_all_groups', 'can_manage_billing_group']);

/** Every changeable organization setting, by parameter name (= event property = register's name without `realm_`). */
export const REALM_SETTING_PROPS: Readonly<Record<string, RealmSettingProp>> = {
  ...plain,
  ...Object.fromEntries(
    Object.keys(REALM_GROUP_SETTINGS).map((k): [string, RealmSettingProp] => [k, { kind: 'group', dict: true, ...(OWNER_GROUP_SETTINGS.has(k) ? { owner: true as const } : {}) }]),
  ),
};

/**
 * System groups a group setting may not be (directly or as a subgroup): everyone takes in guests,
 * who may not create or invite; `only` lists the sole system groups allowed where one must be used.
 */
export const GROUP_SETTING_LIMITS: Readonly<Record<string, { forbidden?: readonly string[]; only?: readonly string[] }>> = {
  can_access_all_users_group: { only: ['role:everyone', 'role:members'] },
  can_create_web_public_channel_group: { only: ['role:moderators', 'role:administrators', 'role:owners', 'role:nobody'] },
  ...Object.fromEntries(
    [
      'can_add_custom_emoji_group',
      'can_add_subscribers_group',
      'can_create_bots_group',
      'can_create_groups',
      'can_create_private_channel_group',
      'can_create_public_channel_group',
      'can_create_write_only_bots_group',
      'can_delete_any_message_group',
      'can_invite_users_group',
      'can_manage_all_groups',
      'can_manage_billing_group',
      'can_move_messages_between_channels_group',
      'create_multiuse_invite_group',
    ].map((k) => [k, { forbidden: ['role:everyone'] }]),
  ),
};
