// Table types for the typed query layer; booleans are stored as 0/1 integers on both databases.
import type { Generated, Insertable, Selectable, Updateable } from 'kysely';
import type { BotServiceTable, BotStorageTable, MutedUserTable, UserStatusTable } from './schema-people.js';
import type { ChannelAdminTables } from './schema-channel-admin.js';
import type { PushTables } from './schema-push.js';
import type { MailProxyTables } from './schema-mail-proxy.js';
import type { FileTables } from './schema-files.js';

export interface RealmTable {
  id: Generated<number>;
  string_id: string;
  name: string;
  description: string;
  date_created: number;
  deactivated: number;
  /** JSON object of realm settings that differ from the defaults in models/realm-settings. */
  settings: string;
}

export interface UserTable {
  id: Generated<number>;
  realm_id: number;
  /** The API email (may be a dummy address when the real one is hidden). */
  email: string;
  delivery_email: string;
  /** Lower-cased delivery_email, for case-insensitive lookups. */
  email_key: string;
  full_name: string;
  password_hash: string | null;
  api_key: string;
  role: number;
  is_active: number;
  is_bot: number;
  bot_type: number | null;
  bot_owner_id: number | null;
  date_joined: number;
  timezone: string;
  avatar_source: string;
  avatar_version: number;
  is_imported_stub: number;
  is_deleted: number;
  /** The owner-only permission to change other users' emails (migration 008; set by the operator). */
  can_change_user_emails: Generated<number>;
  /** The permission to create accounts through POST /users (migration 031; set by the operator). */
  can_create_users: Generated<number>;
  /** 1 until the first login of an API-created or imported account (migration 008). */
  first_login_pending: Generated<number>;
  /** JSON object of personal settings that differ from the defaults in models/user-settings. */
  settings: string;
}

export interface RecipientTable {
  id: Generated<number>;
  /** 2 channel, 3 direct-message group (every direct conversation, including one with oneself). */
  type: number;
  type_id: number;
}

export interface DirectMessageGroupTable {
  id: Generated<number>;
  realm_id: number;
  /** Sorted, comma-separated member IDs: the conversation's identity. */
  user_ids_key: string;
  recipient_id: number;
}

export interface StreamTable {
  id: Generated<number>;
  realm_id: number;
  name: string;
  name_key: string;
  description: string;
  rendered_description: string;
  invite_only: number;
  history_public_to_subscribers: number;
  is_web_public: number;
  is_archived: number;
  date_created: number;
  creator_id: number | null;
  recipient_id: number;
  first_message_id: number | null;
  message_retention_days: number | null;
  topics_policy: string;
  folder_id: number | null;
  /** JSON object: channel permission name → user group ID (named or anonymous). */
  permissions: string;
}

export interface SubscriptionTable {
  id: Generated<number>;
  user_id: number;
  stream_id: number;
  active: number;
  is_muted: number;
  pin_to_top: number;
  color: string;
  desktop_notifications: number | null;
  email_notifications: number | null;
  push_notifications: number | null;
  audible_notifications: number | null;
  wildcard_mentions_notify: number | null;
  /** No unread row of this user in this channel has a smaller message ID (see lib/messages/unread.ts). */
  unread_floor: Generated<number>;
  /** The user's users.is_active, kept equal to it (actions/user-active.ts): a send's recipients come from one index. */
  user_active: Generated<number>;
}

export interface MessageTable {
  id: Generated<number>;
  realm_id: number;
  /** 1 channel message, 2 direct message. */
  type: number;
  recipient_id: number;
  stream_id: number | null;
  sender_id: number;
  topic: string;
  /** Lower-cased topic: topics match case-insensitively. */
  topic_key: string;
  content: string;
  rendered_content: string;
  date_sent: number;
  sending_client: string;
  last_edit_time: number | null;
  last_moved_time: number | null;
  /** JSON array of edit-history entries, newest first, or null. */
  edit_history: string | null;
  is_me_message: number;
  has_link: number;
  has_image: number;
  has_attachment: number;
}

/** Clustered by (message_id, user_id): only partial indexes find a user's rows (migration 002). */
export interface UserMessageTable {
  message_id: number;
  user_id: number;
  /** Bit set of models/flags. */
  flags: number;
}

export interface ReactionTable {
  id: Generated<number>;
  message_id: number;
  user_id: number;
  emoji_name: string;
  emoji_code: string;
  reaction_type: string;
}

export interface UserGroupTable {
  id: Generated<number>;
  realm_id: number;
  /** Null for an anonymous group that backs one group-setting value. */
  name: string | null;
  description: string;
  is_system_group: number;
  deactivated: number;
  date_created: number | null;
  creator_id: number | null;
  /** JSON object: group permission name → user group ID. */
  permissions: string;
}

export interface UserGroupMemberTable {
  group_id: number;
  user_id: number;
}

export interface UserGroupSubgroupTable {
  group_id: number;
  subgroup_id: number;
}

/** Full-text search rows on SQLite (FTS5, rowid = message id); PostgreSQL uses an expression index instead. */
export interface MessageSearchTable {
  rowid: number;
  topic: string;
  content: string;
}

export interface DefaultStreamTable {
  realm_id: number;
  stream_id: number;
}

/** Email-change confirmations: one row per emailed one-time key (stored hashed), until used or expired. */
export interface EmailChangeTable {
  id: Generated<number>;
  /** SHA-256 (hex) of the key in the emailed link: a copy of the database cannot confirm anything. */
  key_hash: string;
  realm_id: number;
  user_id: number;
  new_email: string;
  created_at: number;
  expires_at: number;
  /** Set when the key was used; a used key is refused. */
  used_at: number | null;
}
/** A signed-in browser (migration 015): the cookie holds the token, the table its hash. */
export interface WebSessionTable {
  token_hash: string;
  realm_id: number;
  user_id: number;
  csrf_token: string;
  created_at: number;
  expires_at: number;
}

/** A mailed "set a new password" link (migration 015); works once, until it expires. */
export interface PasswordResetTable {
  key_hash: string;
  realm_id: number;
  user_id: number;
  created_at: number;
  expires_at: number;
  used_at: number | null;
}

/** A scheduled reminder, until the transaction that sends it deletes it (migration 006). */
export interface ReminderTable {
  id: Generated<number>;
  realm_id: number;
  user_id: number;
  /** The referenced message; kept as a plain ID, the message may be deleted later. */
  message_id: number;
  note: string;
  /** The notification bot's message text, fixed at creation. */
  content: string;
  rendered_content: string;
  scheduled_at: number;
  created_at: number;
  /** 1 when delivery failed for good (the caller can no longer receive it). */
  failed: Generated<number>;
  /** A worker is delivering it until this time; another may retry after. */
  claimed_until: number | null;
}

/** Bots the server itself runs in an organization, by kind ("notification"), created on first use. */
export interface RealmSystemBotTable {
  realm_id: number;
  kind: string;
  user_id: number;
}

/** The latest presence of a user (all clients merged). */
export interface UserPresenceTable {
  user_id: number;
  realm_id: number;
  /** Last report of any kind ("idle_timestamp"). */
  last_connected_time: number;
  /** Last "active" report ("active_timestamp"), null when never active. */
  last_active_time: number | null;
  /** The organization's presence sequence value at this row's last change. */
  last_update_id: number;
}

export interface PresenceSequenceTable {
  realm_id: number;
  last_update_id: number;
}

export interface RealmEmojiTable {
  id: Generated<number>;
  realm_id: number;
  name: string;
  /** The image's file name under <data dir>/emoji/<realm id>/. */
  file_name: string;
  is_animated: Generated<number>;
  author_id: number | null;
  deactivated: Generated<number>;
}

export interface RealmLinkifierTable {
  id: Generated<number>;
  realm_id: number;
  pattern: string;
  url_template: string;
  example_input: string | null;
  reverse_template: string | null;
  /** JSON array of strings. */
  alternative_url_templates: string;
  sort_order: number;
}
/** A user's visibility policy for one topic (1 muted, 2 unmuted, 3 followed); "none" (0) has no row. */
export interface UserTopicTable {
  user_id: number;
  stream_id: number;
  /** The spelling the user last set it with. */
  topic: string;
  /** Lower-cased topic: topics match case-insensitively. */
  topic_key: string;
  visibility_policy: number;
  last_updated: number;
}

/** A message draft kept on the server for syncing between a user's clients (migration 005). */
export interface DraftTable {
  id: Generated<number>;
  user_id: number;
  /** '' (unaddressed), 'stream' or 'private'. */
  type: string;
  /** JSON array of IDs: one channel, or the direct message's users. */
  to_ids: string;
  topic: string;
  content: string;
  last_edit_time: number;
}

export interface SavedSnippetTable {
  id: Generated<number>;
  user_id: number;
  title: string;
  content: string;
  date_created: number;
}

/** A user's configuration of a built-in (name null) or custom navigation view. */
export interface NavigationViewTable {
  id: Generated<number>;
  user_id: number;
  fragment: string;
  is_pinned: number;
  name: string | null;
}

export interface AlertWordTable {
  id: Generated<number>;
  realm_id: number;
  user_id: number;
  word: string;
  /** The word lower-cased: unique per user. */
  word_key: string;
}
/** A custom profile field of an organization (migration 008). */
export interface CustomProfileFieldTable {
  id: Generated<number>;
  realm_id: number;
  type: number;
  name: string;
  hint: string;
  /** JSON text: the choices of a select field, the subtype of an external account; "" otherwise. */
  field_data: string;
  field_order: number;
  display_in_profile_summary: number;
  required: number;
  editable_by_user: number;
}

export interface CustomProfileFieldValueTable {
  user_id: number;
  field_id: number;
  value: string;
  rendered_value: string | null;
}

/** One emailed invitation (migration 009); status 0 pending, 1 accepted, 2 revoked. */
export interface InvitationTable {
  id: Generated<number>;
  realm_id: number;
  email: string;
  email_key: string;
  /** SHA-256 of the one-time key in the emailed link. */
  key_hash: string;
  invited_by_id: number;
  invited_at: number;
  /** Null: never expires. */
  expires_at: number | null;
  invited_as: number;
  /** JSON arrays of IDs. */
  stream_ids: string;
  group_ids: string;
  include_realm_default_subscriptions: number;
  notify_referrer_on_join: number;
  welcome_message_custom_text: string | null;
  status: number;
  accepted_user_id: number | null;
}

/** A channel's email-gateway address for one (creator, sender) pair; the token is the secret. */
export interface ChannelEmailAddressTable {
  id: Generated<number>;
  realm_id: number;
  stream_id: number;
  creator_id: number;
  sender_id: number;
  email_token: string;
  date_created: number;
}

/** A user's completed authorization with the video-call provider. */
/** Who deleted a message's earlier content versions (DELETE /messages/{id}/history, migration 025). */
export interface MessageHistoryDeletionTable {
  message_id: number;
  deleted_by: number;
  deleted_at: number;
}
/** A user's Webex OAuth token (migration 025). */
export interface WebexTokenTable {
  user_id: number;
  access_token: string;
  refresh_token: string | null;
  expires_at: number | null;
  created_at: number;
}
export interface VideoCallTokenTable {
  user_id: number;
  provider: string;
  token: string;
  created_at: number;
}
/** A bot's default channels (migration 010); no row means none. */
export interface BotSettingsTable {
  user_id: number;
  default_sending_stream_id: number | null;
  default_events_register_stream_id: number | null;
  default_all_public_streams: Generated<number>;
}

export interface AttachmentTable {
  id: Generated<number>;
  realm_id: number;
  owner_id: number;
  path_id: string;
  file_name: string;
  size: number;
  content_type: string;
  create_time: number;
  url_secret: string;
}

export interface AttachmentMessageTable {
  attachment_id: number;
  message_id: number;
}

/** A message to send later, until the transaction that sends it deletes it (migration 019). */
export interface ScheduledMessageTable {
  id: Generated<number>;
  realm_id: number;
  user_id: number;
  /** 'stream' or 'private'. */
  kind: string;
  stream_id: number | null;
  /** Direct messages: JSON list of the recipients' IDs as the sender chose them. */
  to_user_ids: string | null;
  topic: string;
  content: string;
  rendered_content: string;
  scheduled_at: number;
  /** Null: the server's default (read). */
  read_by_sender: number | null;
  created_at: number;
  /** 1 when the server tried to send it and could not; kept for the user to fix or delete. */
  failed: Generated<number>;
  failure_message: string | null;
  /** A worker is delivering it until this time; another may retry after. */
  claimed_until: number | null;
}

/** A reusable invitation link (migration 019); status as for invitations (pending, revoked). */
export interface MultiuseInviteTable {
  id: Generated<number>;
  realm_id: number;
  link_key: string;
  invited_by_id: number;
  invited_at: number;
  expires_at: number | null;
  invited_as: number;
  stream_ids: string;
  group_ids: string;
  include_realm_default_subscriptions: number;
  welcome_message_custom_text: string | null;
  status: number;
}

/** A data export requested through the API (migration 016); the file lives under <data dir>/exports/. */
/** A message that may become a missed-message email to user_id (migration 021). */
export interface EmailPendingTable {
  id: Generated<number>;
  realm_id: number;
  user_id: number;
  message_id: number;
  /** Why: private, mentioned, wildcard_mentioned, followed_topic or stream_email. */
  trigger: string;
  created_at: number;
  claim: string | null;
  claimed_until: number | null;
  /** The composed email this row went into (migration 027); deleted with it once sent. */
  batch_id: number | null;
}

/** A notification's Reply-To address: mail to it becomes user_id's reply in message_id's conversation. */
export interface EmailReplyAddressTable {
  token: string;
  realm_id: number;
  user_id: number;
  message_id: number;
  created_at: number;
}

export interface EmailUnsubscribeTokenTable {
  token: string;
  user_id: number;
  /** missed_messages, channel, followed_topics or digest. */
  kind: string;
}

export interface EmailDigestStateTable {
  user_id: number;
  last_sent_at: number;
}

export interface RealmExportTable {
  id: Generated<number>;
  realm_id: number;
  acting_user_id: number;
  /** 'public' or 'full_with_consent'. */
  export_type: string;
  export_time: number;
  pending: Generated<number>;
  failed_time: number | null;
  deleted_time: number | null;
  /** "<realm id>/<random>/<file name>" under <data dir>/exports/, once written. */
  file_key: string | null;
}

export interface DB extends ChannelAdminTables, PushTables, MailProxyTables, FileTables {
  bot_storage: BotStorageTable;
  user_status: UserStatusTable;
  muted_users: MutedUserTable;
  bot_services: BotServiceTable;
  multiuse_invites: MultiuseInviteTable;
  scheduled_messages: ScheduledMessageTable;
  web_sessions: WebSessionTable;
  password_resets: PasswordResetTable;
  realm_exports: RealmExportTable;
  email_pending: EmailPendingTable;
  email_reply_addresses: EmailReplyAddressTable;
  email_unsubscribe_tokens: EmailUnsubscribeTokenTable;
  email_digest_state: EmailDigestStateTable;
  attachments: AttachmentTable;
  attachment_messages: AttachmentMessageTable;
  bot_settings: BotSettingsTable;
  invitations: InvitationTable;
  channel_email_addresses: ChannelEmailAddressTable;
  video_call_tokens: VideoCallTokenTable;
  webex_tokens: WebexTokenTable;
  message_history_deletions: MessageHistoryDeletionTable;
  custom_profile_fields: CustomProfileFieldTable;
  custom_profile_field_values: CustomProfileFieldValueTable;
  drafts: DraftTable;
  saved_snippets: SavedSnippetTable;
  navigation_views: NavigationViewTable;
  alert_words: AlertWordTable;
  user_topics: UserTopicTable;
  reminders: ReminderTable;
  realm_system_bots: RealmSystemBotTable;
  user_presence: UserPresenceTable;
  presence_sequences: PresenceSequenceTable;
  realm_emoji: RealmEmojiTable;
  realm_linkifiers: RealmLinkifierTable;
  email_changes: EmailChangeTable;
  default_streams: DefaultStreamTable;
  realms: RealmTable;
  users: UserTable;
  recipients: RecipientTable;
  direct_message_groups: DirectMessageGroupTable;
  streams: StreamTable;
  subscriptions: SubscriptionTable;
  messages: MessageTable;
  user_messages: UserMessageTable;
  reactions: ReactionTable;
  user_groups: UserGroupTable;
  user_group_members: UserGroupMemberTable;
  user_group_subgroups: UserGroupSubgroupTable;
  message_search: MessageSearchTable;
}

export type Realm = Selectable<RealmTable>;
export type User = Selectable<UserTable>;
export type NewUser = Insertable<UserTable>;
export type UserUpdate = Updateable<UserTable>;
export type Stream = Selectable<StreamTable>;
export type Subscription = Selectable<SubscriptionTable>;
export type Message = Selectable<MessageTable>;
export type Reaction = Selectable<ReactionTable>;
export type UserGroup = Selectable<UserGroupTable>;
export type Attachment = Selectable<AttachmentTable>;
export type ScheduledMessage = Selectable<ScheduledMessageTable>;
