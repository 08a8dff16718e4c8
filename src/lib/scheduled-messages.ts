// Scheduled messages as the API shows them, and the checks a scheduled message's target must pass.
import type { Realm, ScheduledMessage, Stream, User } from '../store/schema.js';
import type { Tx } from '../store/store.js';
import { ApiError, badRequest } from '../core/api-error.js';
import { missing } from '../core/params.js';
import { checkCanSendToStream, noStreamWithId, requireStream } from './messages/access.js';
import { resolveDmParticipants } from './messages/recipients.js';
import { checkTopicAllowed, normalizeTopicInput } from './messages/topic.js';

export const scheduledMessageMissing = () => new ApiError('Scheduled message does not exist', 'BAD_REQUEST', 404);

export function presentScheduledMessage(r: ScheduledMessage): Record<string, unknown> {
  const base = {
    scheduled_message_id: r.id,
    content: r.content,
    rendered_content: r.rendered_content,
    scheduled_delivery_timestamp: r.scheduled_at,
    failed: r.failed === 1,
  };
  if (r.kind === 'stream') return { ...base, type: 'stream', to: r.stream_id, topic: r.topic };
  return { ...base, type: 'private', to: JSON.parse(r.to_user_ids ?? '[]') as number[] };
}

/** Undelivered scheduled messages of a user, soonest first (GET /scheduled_messages and register). */
export async function userScheduledMessages(tx: Tx, userId: number): Promise<Record<string, unknown>[]> {
  const rows = await tx.selectFrom('scheduled_messages').selectAll().where('user_id', '=', userId).orderBy('scheduled_at').orderBy('id').execute();
  return rows.map(presentScheduledMessage);
}

/** The caller's own scheduled message, else the original's 404. */
export async function ownScheduledMessage(tx: Tx, user: User, id: number): Promise<ScheduledMessage> {
  const row = await tx.selectFrom('scheduled_messages').selectAll().where('id', '=', id).where('user_id', '=', user.id).executeTakeFirst();
  if (!row) throw scheduledMessageMissing();
  return row;
}

/** Where a scheduled message goes, as the client named it (`to` decoded from JSON). */
export interface ScheduledTarget {
  kind: 'stream' | 'private';
  to: number | number[];
  /** Raw topic; required for channel messages, ignored for direct ones. */
  topic?: string;
}

export interface CheckedTarget {
  kind: 'stream' | 'private';
  stream: Stream | null;
  topic: string;
  /** Direct messages: the recipients as chosen (deduplicated), stored and shown as `to`. */
  userIds: number[] | null;
}

/** Checks the target as a send would (channel and topic rules, recipients): errors come at scheduling, not at delivery. */
export async function checkScheduledTarget(tx: Tx, realm: Realm, sender: User, t: ScheduledTarget): Promise<CheckedTarget> {
  if (t.kind === 'stream') {
    let ref = t.to;
    if (Array.isArray(ref)) {
      if (ref.length !== 1) throw badRequest('Must specify exactly 1 channel ID for channel messages');
      ref = ref[0]!;
    }
    const stream = await requireStream(tx, realm.id, ref);
    const channelRef = ref;
    await checkCanSendToStream(tx, sender, stream, typeof channelRef === 'number' ? () => noStreamWithId(channelRef) : undefined);
    if (t.topic === undefined) throw missing('topic');
    const topic = normalizeTopicInput(t.topic, realm);
    checkTopicAllowed(topic, realm, stream);
    return { kind: 'stream', stream, topic, userIds: null };
  }
  const ids = [...new Set(Array.isArray(t.to) ? t.to : [t.to])];
  await resolveDmParticipants(tx, realm, sender, ids);
  return { kind: 'private', stream: null, topic: '', userIds: ids };
}
