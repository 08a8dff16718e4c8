// Inserts the rows of a new channel (channel, recipient, permission groups); no events, no checks.
import type { Tx } from '../store/store.js';
import type { Stream } from '../store/schema.js';
import { systemGroupIds } from './groups.js';

export const RECIPIENT_STREAM = 2;
export const RECIPIENT_DM_GROUP = 3;

/** Channel permissions and the system group each one defaults to. */
export const STREAM_GROUP_SETTINGS: Record<string, string> = {
  can_add_subscribers_group: 'role:nobody',
  can_administer_channel_group: 'role:nobody',
  can_create_topic_group: 'role:everyone',
  can_delete_any_message_group: 'role:nobody',
  can_delete_own_message_group: 'role:everyone',
  can_move_messages_out_of_channel_group: 'role:nobody',
  can_move_messages_within_channel_group: 'role:nobody',
  can_remove_subscribers_group: 'role:administrators',
  can_resolve_topics_group: 'role:nobody',
  can_send_message_group: 'role:everyone',
  can_subscribe_group: 'role:nobody',
};

export interface NewStream {
  realmId: number;
  name: string;
  description: string;
  renderedDescription: string;
  inviteOnly: boolean;
  historyPublicToSubscribers: boolean;
  isWebPublic: boolean;
  creatorId: number | null;
  messageRetentionDays: number | null;
  topicsPolicy: string;
  /** Overrides of STREAM_GROUP_SETTINGS as group IDs. */
  permissions: Record<string, number>;
  now: number;
}

export async function insertStream(tx: Tx, s: NewStream): Promise<Stream> {
  const groups = await systemGroupIds(tx, s.realmId);
  const permissions: Record<string, number> = {};
  for (const [k, def] of Object.entries(STREAM_GROUP_SETTINGS)) permissions[k] = s.permissions[k] ?? groups[def as keyof typeof groups];
  // The recipient row needs the channel's ID and the channel needs the recipient's: insert, then link.
  const stream = await tx
    .insertInto('streams')
    .values({
      realm_id: s.realmId,
      name: s.name,
      name_key: s.name.toLowerCase(),
      description: s.description,
      rendered_description: s.renderedDescription,
      invite_only: s.inviteOnly ? 1 : 0,
      history_public_to_subscribers: s.historyPublicToSubscribers ? 1 : 0,
      is_web_public: s.isWebPublic ? 1 : 0,
      is_archived: 0,
      date_created: s.now,
      creator_id: s.creatorId,
      recipient_id: 0,
      first_message_id: null,
      message_retention_days: s.messageRetentionDays,
      topics_policy: s.topicsPolicy,
      folder_id: null,
      permissions: JSON.stringify(permissions),
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  const recipient = await tx.insertInto('recipients').values({ type: RECIPIENT_STREAM, type_id: stream.id }).returning('id').executeTakeFirstOrThrow();
  await tx.updateTable('streams').set({ recipient_id: recipient.id }).where('id', '=', stream.id).execute();
  return { ...stream, recipient_id: recipient.id };
}

/** A pleasant default color for a new subscription, chosen by how many the user already has. */
const STREAM_COLORS = ['#76ce90', '#fae589', '#a6c7e5', '#e79ab5', '#bfd56f', '#f4ae55', '#b0a5fd', '#addfe5', '#f5ce6e', '#c2726a', '#94c849', '#bd86e5', '#ee7e4a', '#a6dcbf', '#95a5fd', '#53a063', '#9987e1', '#e4523d', '#c2c2c2', '#4f8de4', '#c6a8ad', '#e7cc4d', '#c8bebf', '#a47462'];
export const pickStreamColor = (n: number): string => STREAM_COLORS[n % STREAM_COLORS.length];
