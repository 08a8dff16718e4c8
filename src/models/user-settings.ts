// The personal settings property table: name → type, default and allowed values. It drives
// validation, storage, the user_settings block of /register and the user_settings event alike.

export type SettingType = 'bool' | 'int' | 'str';
export interface SettingSpec {
  type: SettingType;
  default: boolean | number | string;
  /** Allowed values for enumerated settings. */
  allowed?: readonly (number | string)[];
  /** Inclusive bounds for free integer settings. */
  min?: number;
  max?: number;
}

const bool = (d: boolean): SettingSpec => ({ type: 'bool', default: d });
const int = (d: number, allowed?: readonly number[]): SettingSpec => ({ type: 'int', default: d, allowed });
const range = (d: number, min: number, max: number): SettingSpec => ({ type: 'int', default: d, min, max });
const str = (d: string, allowed?: readonly string[]): SettingSpec => ({ type: 'str', default: d, allowed });

export const NOTIFICATION_SOUNDS = ['chime', 'ding', 'knock', 'none'] as const;
/** Languages the server declares it has, with the English names sent as `language_name`. */
export const LANGUAGES: Readonly<Record<string, string>> = {
  en: 'English',
  de: 'German',
  es: 'Spanish',
  fr: 'French',
  it: 'Italian',
  ja: 'Japanese',
  nl: 'Dutch',
  pl: 'Polish',
  pt: 'Portuguese',
  ru: 'Russian',
  'zh-hans': 'Simplified Chinese',
};

/** Week-long batching is the longest the original allows; longer would mean no email at all. */
export const MAX_EMAIL_BATCHING_SECS = 7 * 24 * 3600;

export const EMOJISETS = [
  { key: 'modern', text: 'Modern style' },
  { key: 'social', text: 'Social style' },
  { key: 'text', text: 'Plain text' },
] as const;

export const USER_SETTINGS: Record<string, SettingSpec> = {
  twenty_four_hour_time: bool(false),
  web_mark_read_on_scroll_policy: int(1, [1, 2, 3]),
  web_channel_default_view: int(1, [1, 2, 3, 4]),
  starred_message_counts: bool(true),
  receives_typing_notifications: bool(true),
  web_suggest_update_timezone: bool(true),
  fluid_layout_width: bool(false),
  high_contrast_mode: bool(false),
  web_font_size_px: range(16, 1, 100),
  web_line_height_percent: range(140, 1, 1000),
  color_scheme: int(1, [1, 2, 3]),
  translate_emoticons: bool(false),
  display_emoji_reaction_users: bool(true),
  default_language: str('en', Object.keys(LANGUAGES)),
  web_home_view: str('inbox', ['recent', 'inbox', 'all_messages']),
  web_escape_navigates_to_home_view: bool(true),
  left_side_userlist: bool(false),
  emojiset: str('modern', ['text', 'modern', 'social']),
  demote_inactive_streams: int(1, [1, 2, 3]),
  user_list_style: int(2, [1, 2, 3]),
  web_animate_image_previews: str('on_hover', ['always', 'on_hover', 'never']),
  web_stream_unreads_count_display_policy: int(2, [1, 2, 3]),
  hide_ai_features: bool(false),
  web_inbox_show_channel_folders: bool(true),
  web_left_sidebar_show_channel_folders: bool(true),
  web_left_sidebar_unreads_count_summary: bool(true),
  timezone: str(''),
  enter_sends: bool(false),
  enable_drafts_synchronization: bool(true),
  enable_stream_desktop_notifications: bool(false),
  enable_stream_email_notifications: bool(false),
  enable_stream_push_notifications: bool(false),
  enable_stream_audible_notifications: bool(false),
  notification_sound: str('chime', NOTIFICATION_SOUNDS),
  enable_desktop_notifications: bool(true),
  enable_sounds: bool(true),
  enable_followed_topic_desktop_notifications: bool(true),
  enable_followed_topic_email_notifications: bool(true),
  enable_followed_topic_push_notifications: bool(true),
  enable_followed_topic_audible_notifications: bool(true),
  email_notifications_batching_period_seconds: range(120, 1, MAX_EMAIL_BATCHING_SECS),
  enable_offline_email_notifications: bool(true),
  enable_offline_push_notifications: bool(true),
  enable_online_push_notifications: bool(true),
  enable_digest_emails: bool(true),
  enable_marketing_emails: bool(true),
  enable_login_emails: bool(true),
  message_content_in_email_notifications: bool(true),
  pm_content_in_desktop_notifications: bool(true),
  wildcard_mentions_notify: bool(true),
  enable_followed_topic_wildcard_mentions_notify: bool(true),
  desktop_icon_count_display: int(1, [1, 2, 3, 4]),
  realm_name_in_email_notifications_policy: int(1, [1, 2, 3]),
  automatically_follow_topics_policy: int(3, [1, 2, 3, 4]),
  automatically_unmute_topics_in_muted_streams_policy: int(2, [1, 2, 3, 4]),
  automatically_follow_topics_where_mentioned: bool(true),
  resolved_topic_notice_auto_read_policy: str('except_followed', ['always', 'except_followed', 'never']),
  presence_enabled: bool(true),
  send_private_typing_notifications: bool(true),
  send_stream_typing_notifications: bool(true),
  send_read_receipts: bool(true),
  allow_private_data_export: bool(false),
  email_address_visibility: int(1, [1, 2, 3, 4, 5]),
  web_navigate_to_sent_message: bool(true),
};

export type SettingValue = boolean | number | string;
export type UserSettingsValues = Record<string, SettingValue>;

/** Settings stored in their own users column rather than in the settings JSON. */
export const COLUMN_SETTINGS: ReadonlySet<string> = new Set(['timezone']);

/**
 * Key inside the stored settings JSON listing the settings the user chose themselves (not an
 * administrator's bulk edit), for target_users' skip_if_already_edited. Never shown to clients.
 */
export const SELF_SET_KEY = '__self_set';

export interface StoredSettings {
  values: UserSettingsValues;
  selfSet: string[];
}

export function parseStoredSettings(storedJson: string): StoredSettings {
  const raw = storedJson ? (JSON.parse(storedJson) as Record<string, unknown>) : {};
  const { [SELF_SET_KEY]: selfSet, ...values } = raw;
  return { values: values as UserSettingsValues, selfSet: Array.isArray(selfSet) ? (selfSet as string[]) : [] };
}

export function serializeStoredSettings(s: StoredSettings): string {
  return JSON.stringify(s.selfSet.length ? { ...s.values, [SELF_SET_KEY]: [...new Set(s.selfSet)].sort() } : s.values);
}

/** Stored overrides merged over the defaults. */
export function effectiveUserSettings(storedJson: string): UserSettingsValues {
  const out: UserSettingsValues = {};
  const { values } = parseStoredSettings(storedJson);
  for (const [name, spec] of Object.entries(USER_SETTINGS)) out[name] = values[name] ?? spec.default;
  return out;
}

/** One effective setting, without building the whole object (typing checks every recipient). */
export function userSetting(storedJson: string, name: string): SettingValue {
  const stored = parseStoredSettings(storedJson).values[name];
  return stored ?? USER_SETTINGS[name].default;
}

let timezones: ReadonlySet<string> | null = null;
const IANA_NAME = /^[A-Z][A-Za-z0-9_+-]*(\/[A-Z][A-Za-z0-9_+-]*)*$/;

/**
 * IANA names the runtime lists, plus "UTC" and "" (not set). The list holds one spelling per zone
 * and the ICU build decides which (Asia/Calcutta or Asia/Kolkata), so other IANA names the runtime
 * resolves (links such as Asia/Kolkata, US/Eastern) count too, spelled exactly (case-sensitive).
 */
export function isValidTimezone(name: string): boolean {
  timezones ??= new Set([...Intl.supportedValuesOf('timeZone'), 'UTC', '']);
  if (timezones.has(name)) return true;
  if (!IANA_NAME.test(name)) return false;
  try {
    new Intl.DateTimeFormat('en', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}
