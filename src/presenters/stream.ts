// The one place a channel row becomes an API channel object (GET /streams, stream events, and the
// channel half of subscription objects).
import type { Stream } from '../store/schema.js';
import type { GroupSettingValue } from '../lib/groups.js';

/** The deprecated stream_post_policy, derived from can_send_message_group when it is a role group. */
const POST_POLICY_BY_GROUP: Record<string, number> = {
  'role:everyone': 1,
  'role:administrators': 2,
  'role:fullmembers': 3,
  'role:moderators': 4,
};

export interface StreamPresentInput {
  /** Channel permission → group ID. */
  permissions: Record<string, number>;
  /** Group ID → its API group-setting value. */
  groupValues: Map<number, GroupSettingValue>;
  /** Group ID → name, for system groups (derives stream_post_policy). */
  groupNames: Map<number, string | null>;
  subscriberCount: number;
}

export function presentStream(s: Stream, input: StreamPresentInput): Record<string, unknown> {
  const sendGroup = input.permissions.can_send_message_group;
  const postPolicy = POST_POLICY_BY_GROUP[input.groupNames.get(sendGroup) ?? ''] ?? 1;
  const out: Record<string, unknown> = {
    stream_id: s.id,
    name: s.name,
    description: s.description,
    rendered_description: s.rendered_description,
    date_created: s.date_created,
    creator_id: s.creator_id,
    invite_only: s.invite_only === 1,
    is_web_public: s.is_web_public === 1,
    is_announcement_only: postPolicy === 2,
    stream_post_policy: postPolicy,
    history_public_to_subscribers: s.history_public_to_subscribers === 1,
    first_message_id: s.first_message_id,
    folder_id: s.folder_id,
    message_retention_days: s.message_retention_days,
    topics_policy: s.topics_policy,
    is_archived: s.is_archived === 1,
    // No traffic statistics are kept; null is the API's "no estimate".
    stream_weekly_traffic: null,
    // No activity tracking either: every channel that is not archived counts as recently active.
    is_recently_active: s.is_archived === 0,
    subscriber_count: input.subscriberCount,
  };
  for (const name of Object.keys(input.permissions).sort()) {
    const id = input.permissions[name];
    out[name] = input.groupValues.get(id) ?? id;
  }
  return out;
}
