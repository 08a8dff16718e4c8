// POST /streams/{stream_id}/delete_topic: deletes a topic's messages in batches, newest first, each
// batch its own transaction (with its delete_message events), until done or the time budget is spent.
import type { Transaction } from 'kysely';
import { performance } from 'node:perf_hooks';
import type { AppContext } from '../context.js';
import type { DB, Realm, Stream, User } from '../store/schema.js';
import type { Dialect } from '../store/dialect.js';
import { writeWithEvents, type Outgoing } from '../events/publish.js';
import { ApiError } from '../core/api-error.js';
import { isAdminRole } from '../models/roles.js';
import { accessStreamById, subscriberIds } from '../lib/streams/access.js';
import { canAccessStreamHistory } from '../lib/messages/access.js';
import { normalizeTopicInput, topicKey } from '../lib/messages/topic.js';
import { unindexMessages } from '../lib/messages/search.js';
import { emptyTopicDisplayName } from '../lib/realm-settings.js';
import { refreshFirstMessageIds } from './messages-common.js';

export const mustBeAdmin = () => new ApiError('Must be an organization administrator', 'UNAUTHORIZED_PRINCIPAL', 400);

interface Batch {
  stream: Stream;
  topic: string;
  limit: number;
  /** Whether the caller can read the channel's whole history (else only messages they received). */
  fullHistory: boolean;
}

/** Deletes the next (newest) batch the caller can see; returns whether more remain, and the events. */
async function deleteBatch(tx: Transaction<DB>, dialect: Dialect, realm: Realm, user: User, b: Batch): Promise<{ more: boolean; events: Outgoing[] }> {
  const { stream, topic, limit, fullHistory } = b;
  let q = tx.selectFrom('messages as m').select('m.id').where('m.recipient_id', '=', stream.recipient_id).where('m.topic_key', '=', topicKey(topic));
  // Without access to the channel's history, an administrator deletes only the messages they received.
  if (!fullHistory) {
    q = q.where((eb) => eb.exists(eb.selectFrom('user_messages as um').select('um.message_id').whereRef('um.message_id', '=', 'm.id').where('um.user_id', '=', user.id)));
  }
  // One row past the batch tells whether another batch follows.
  const found = (await q.orderBy('m.id', 'desc').limit(limit + 1).execute()).map((r) => r.id);
  const more = found.length > limit;
  const ids = found.slice(0, limit).sort((a, b) => a - b);
  if (!ids.length) return { more, events: [] };
  const holders = (await tx.selectFrom('user_messages').select('user_id').distinct().where('message_id', 'in', ids).execute()).map((r) => r.user_id);
  // Subscribers may have fetched the messages through shared history without holding rows.
  const readers = stream.invite_only && !stream.history_public_to_subscribers ? [] : await subscriberIds(tx, stream.id);
  await tx.deleteFrom('reactions').where('message_id', 'in', ids).execute();
  await tx.deleteFrom('user_messages').where('message_id', 'in', ids).execute();
  await unindexMessages(tx, dialect, ids);
  await tx.deleteFrom('messages').where('id', 'in', ids).execute();
  const events: Outgoing[] = [
    {
      users: [...new Set([...holders, ...readers])],
      event: { type: 'delete_message', message_ids: ids, message_type: 'stream', stream_id: stream.id, topic, __empty_topic_name: emptyTopicDisplayName(realm) },
    },
  ];
  if (stream.first_message_id !== null && ids.includes(stream.first_message_id)) events.push(...(await refreshFirstMessageIds(tx, [stream.id])));
  return { more, events };
}

export async function doDeleteTopic(app: AppContext, realm: Realm, user: User, streamId: number, topicName: string): Promise<{ complete: boolean }> {
  if (!isAdminRole(user.role)) throw mustBeAdmin();
  const topic = normalizeTopicInput(topicName, realm);
  const started = performance.now();
  for (;;) {
    const { result } = await writeWithEvents(
      app,
      realm.id,
      async (tx) => {
        const { stream, subscribed } = await accessStreamById(tx, user, streamId);
        const fullHistory = canAccessStreamHistory(user, stream, subscribed);
        return deleteBatch(tx, app.store.dialect, realm, user, { stream, topic, limit: app.config.deleteTopicBatchSize, fullHistory });
      },
      (r) => r.events,
    );
    if (!result.more) return { complete: true };
    // The client repeats the request to continue; every finished batch stays deleted.
    if (performance.now() - started >= app.config.deleteTopicBudgetMs) return { complete: false };
  }
}
