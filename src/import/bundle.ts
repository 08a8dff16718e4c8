// The format-neutral organization every importer produces and the writer stores: rows keyed by the source's own IDs.

/** A person or bot of the source system; `key` is the source's ID (any string). */
export interface ImportUser {
  key: string;
  /** Null when the source has no address (Slack exports without emails): a placeholder is made. */
  email: string | null;
  fullName: string;
  role: number;
  isBot: boolean;
  botType?: number | null;
  botOwnerKey?: string | null;
  /** Kept only when the source carries it (the original's export of bots). */
  apiKey?: string | null;
  isActive: boolean;
  timezone: string;
  dateJoined: number;
  /** Personal settings overrides (JSON object text), as the original's export carries them. */
  settings?: string;
  /** People become stub accounts; the original's export says which already were. */
  isStub?: boolean;
  /** Absolute path of an uploaded avatar image in the unpacked export (resized as an upload is). */
  avatarFile?: string;
}

export interface ImportSubscription {
  userKey: string;
  color?: string;
  isMuted?: boolean;
  pinToTop?: boolean;
  /** Left the channel: the row stays, inactive. */
  active?: boolean;
  /** Per-channel notification overrides (null or absent: the person's general setting). */
  notifications?: Partial<Record<SubscriptionNotification, boolean | null>>;
}

export const SUBSCRIPTION_NOTIFICATIONS = ['desktop_notifications', 'email_notifications', 'push_notifications', 'audible_notifications', 'wildcard_mentions_notify'] as const;
export type SubscriptionNotification = (typeof SUBSCRIPTION_NOTIFICATIONS)[number];

export interface ImportChannel {
  key: string;
  name: string;
  description: string;
  inviteOnly: boolean;
  /**
   * Whether subscribers read history from before they joined. Absent: true, as Slack and Mattermost
   * work; the original's export says per channel (a protected private channel stays protected).
   */
  historyPublic?: boolean;
  messageRetentionDays?: number | null;
  isArchived: boolean;
  isDefault: boolean;
  dateCreated: number;
  creatorKey?: string | null;
  subscribers: ImportSubscription[];
}

export interface ImportReaction {
  userKey: string;
  /** An emoji name: a Unicode emoji of the name table, or a custom emoji of the import. */
  emojiName: string;
}

export interface ImportMessage {
  /** The source's message ID, used for ordering ties and error messages. */
  key: string;
  senderKey: string;
  /** Exactly one of channelKey and dmUserKeys (which includes the sender). */
  channelKey?: string;
  dmUserKeys?: string[];
  topic: string;
  /** The message Markdown, as if typed into Parley (converted from the source's markup). */
  content: string;
  dateSent: number;
  sendingClient?: string;
  reactions: ImportReaction[];
  /** Uploads this message links (source attachment keys). */
  attachmentKeys?: string[];
  /** Per-recipient flags of the original's export (bit set of models/flags); others get "read". */
  flags?: Map<string, number>;
  lastEditTime?: number | null;
  /**
   * Edit-history entries in the original's form, newest first; their user_id, prev_stream and
   * stream hold source keys, which the writer remaps.
   */
  editHistory?: Record<string, unknown>[] | null;
}

export interface ImportAttachment {
  key: string;
  ownerKey: string;
  fileName: string;
  /** Absolute path of the file in the unpacked export. */
  sourceFile: string;
  contentType: string;
  createTime: number;
  /**
   * The original's path_id: message content links it as /user_uploads/<oldPathId>, which the
   * writer rewrites to the new path. Without it, the writer appends a link to the message.
   */
  oldPathId?: string;
}

export interface ImportEmoji {
  name: string;
  /** Absolute path of the image in the unpacked export. */
  sourceFile: string;
  authorKey?: string | null;
  deactivated?: boolean;
}

export interface ImportUserGroup {
  name: string;
  description: string;
  memberKeys: string[];
}

export interface ImportLinkifier {
  pattern: string;
  urlTemplate: string;
}

export interface ImportProfileField {
  key: string;
  type: number;
  name: string;
  hint: string;
  fieldData: string;
  values: { userKey: string; value: string }[];
}

export interface ImportDraft {
  userKey: string;
  type: '' | 'stream' | 'private';
  channelKey?: string;
  dmUserKeys?: string[];
  topic: string;
  content: string;
  lastEditTime: number;
}

export interface ImportTopicPolicy {
  userKey: string;
  channelKey: string;
  topic: string;
  visibilityPolicy: number;
  lastUpdated: number;
}

/** A message its sender scheduled and the source had not sent yet (the original's send-later kind). */
export interface ImportScheduledMessage {
  senderKey: string;
  /** Exactly one of channelKey and dmUserKeys (the recipients as the sender chose them). */
  channelKey?: string;
  dmUserKeys?: string[];
  topic: string;
  content: string;
  scheduledAt: number;
  createdAt: number;
  readBySender: boolean | null;
  failed: boolean;
  failureMessage: string | null;
}

export interface ImportBundle {
  /** The organization's display name (the --name flag overrides it). */
  name: string;
  /** A suggested subdomain (the --subdomain flag overrides it). */
  subdomain: string;
  dateCreated?: number;
  users: ImportUser[];
  channels: ImportChannel[];
  messages: ImportMessage[];
  attachments: ImportAttachment[];
  emoji: ImportEmoji[];
  userGroups: ImportUserGroup[];
  linkifiers: ImportLinkifier[];
  profileFields: ImportProfileField[];
  drafts: ImportDraft[];
  topicPolicies: ImportTopicPolicy[];
  description?: string;
  scheduledMessages?: ImportScheduledMessage[];
  /** Organization settings by the API's names; unknown names and invalid values are left at Parley's defaults. */
  realmSettings?: Record<string, unknown>;
  /** Group settings: setting → the group's name (a system group's "role:…" name, or an imported group's). */
  realmGroupSettings?: Record<string, string>;
  /** The channel message reports go to (moderation_request_channel_id), by source key. */
  moderationChannelKey?: string;
  /** Personal-setting defaults for new members (realm_user_settings_defaults). */
  realmUserDefaults?: Record<string, unknown>;
  /** Bots the server runs (notification bot…), by kind: a Parley export names them so they are not made twice. */
  systemBots?: { kind: string; userKey: string }[];
}

export function emptyBundle(name: string, subdomain: string): ImportBundle {
  return { name, subdomain, users: [], channels: [], messages: [], attachments: [], emoji: [], userGroups: [], linkifiers: [], profileFields: [], drafts: [], topicPolicies: [] };
}

/** A damaged or inconsistent export: the message says what and where. */
export class ImportError extends Error {}
