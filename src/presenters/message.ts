// The one place a message becomes an API object: an internal dict (shared by fetches and events)
// and its per-client finalization (Markdown or HTML, avatar, empty-topic display).
import type { AvatarInfo } from './avatar.js';
import { avatarUrl } from './avatar.js';

export interface DisplayRecipientUser {
  id: number;
  email: string;
  full_name: string;
  is_mirror_dummy: boolean;
}

export interface ReactionDict {
  emoji_name: string;
  emoji_code: string;
  reaction_type: string;
  user_id: number;
}

/** Everything needed to show a message to any client, with no further database access. */
export interface MessageDict {
  id: number;
  type: 'stream' | 'private';
  stream_id?: number;
  subject: string;
  content: string;
  rendered_content: string;
  client: string;
  sender_id: number;
  sender_email: string;
  sender_full_name: string;
  sender_realm_str: string;
  sender_avatar: AvatarInfo;
  display_recipient: string | DisplayRecipientUser[];
  recipient_id: number;
  timestamp: number;
  is_me_message: boolean;
  last_edit_timestamp?: number;
  last_moved_timestamp?: number;
  edit_history?: Record<string, unknown>[];
  reactions: ReactionDict[];
  submessages: unknown[];
  topic_links: { text: string; url: string }[];
}

export interface FinalizeOptions {
  applyMarkdown: boolean;
  clientGravatar: boolean;
  /** Whether the client understands the empty topic; otherwise it sees the display name. */
  allowEmptyTopic: boolean;
  emptyTopicDisplayName: string;
  /** Whether edit history may be shown (the organization may disable it). */
  showEditHistory: boolean;
}

export function displayTopic(topic: string, opts: Pick<FinalizeOptions, 'allowEmptyTopic' | 'emptyTopicDisplayName'>): string {
  return topic === '' && !opts.allowEmptyTopic ? opts.emptyTopicDisplayName : topic;
}

/** `senderAvatarUrl`, when given, is avatarUrl(m.sender_avatar, opts), computed once by a caller finalizing many messages. */
export function finalizeMessage(m: MessageDict, opts: FinalizeOptions, senderAvatarUrl?: string | null): Record<string, unknown> {
  const out: Record<string, unknown> = {
    id: m.id,
    type: m.type,
    // Direct messages have no topic: their empty subject is not the empty channel topic.
    subject: m.type === 'stream' ? displayTopic(m.subject, opts) : m.subject,
    content: opts.applyMarkdown ? m.rendered_content : m.content,
    content_type: opts.applyMarkdown ? 'text/html' : 'text/x-markdown',
    client: m.client,
    avatar_url: senderAvatarUrl !== undefined ? senderAvatarUrl : avatarUrl(m.sender_avatar, { clientGravatar: opts.clientGravatar }),
    display_recipient: m.display_recipient,
    sender_id: m.sender_id,
    sender_email: m.sender_email,
    sender_full_name: m.sender_full_name,
    sender_realm_str: m.sender_realm_str,
    recipient_id: m.recipient_id,
    timestamp: m.timestamp,
    is_me_message: m.is_me_message,
    reactions: m.reactions,
    submessages: m.submessages,
    topic_links: m.topic_links,
  };
  if (m.stream_id !== undefined) out.stream_id = m.stream_id;
  if (m.last_edit_timestamp !== undefined) out.last_edit_timestamp = m.last_edit_timestamp;
  if (m.last_moved_timestamp !== undefined) out.last_moved_timestamp = m.last_moved_timestamp;
  if (m.edit_history !== undefined && opts.showEditHistory) out.edit_history = m.edit_history;
  return out;
}
