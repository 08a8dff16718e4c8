// Setting a topic's visibility policy (POST /user_topics and the legacy muted_topics form): the row,
// the user_topic event, and the legacy muted_topics event when the muted list changed.
import type { AppContext } from '../context.js';
import type { Realm, Stream, User } from '../store/schema.js';
import type { Tx } from '../store/store.js';
import { writeWithEvents, to, type Outgoing } from '../events/publish.js';
import { emailWatchersChanged } from '../lib/mail/watchers.js';
import { badRequest } from '../core/api-error.js';
import { canSeeStream, subscriptionRow } from '../lib/streams/access.js';
import { isDbId } from '../lib/messages/access.js';
import { checkTopicLength, normalizeTopicInput, topicKey } from '../lib/messages/topic.js';
import { emptyTopicDisplayName } from '../lib/realm-settings.js';
import { mutedTopicsList, VisibilityPolicy } from '../lib/topics/visibility.js';

export interface TopicVisibilityInput {
  /** A channel ID, or (legacy form) a channel name. */
  stream: number | string;
  topic: string;
  policy: number;
}

/** A channel the user can see, by ID or name; "Invalid channel ID/name" otherwise, so existence does not leak. */
async function visibleStream(tx: Tx, user: User, ref: number | string, removing: boolean): Promise<{ stream: Stream; mutedChannel: boolean }> {
  const fail = () => badRequest(typeof ref === 'number' ? 'Invalid channel ID' : `Invalid channel name '${ref}'`);
  if (typeof ref === 'number' && !isDbId(ref)) throw fail();
  let q = tx.selectFrom('streams').selectAll().where('realm_id', '=', user.realm_id);
  q = typeof ref === 'number' ? q.where('id', '=', ref) : q.where('name_key', '=', ref.trim().toLowerCase());
  const stream = await q.executeTakeFirst();
  if (!stream) throw fail();
  const sub = await subscriptionRow(tx, user.id, stream.id);
  const subscribed = sub?.active === 1;
  // Removing a policy is allowed wherever one is stored, so a user can clean up after losing access.
  if (!canSeeStream(user, stream, subscribed)) {
    if (!removing) throw fail();
    const stored = await tx.selectFrom('user_topics').select('stream_id').where('user_id', '=', user.id).where('stream_id', '=', stream.id).executeTakeFirst();
    if (!stored) throw fail();
  }
  return { stream, mutedChannel: subscribed && sub?.is_muted === 1 };
}

export async function doSetTopicVisibility(app: AppContext, realm: Realm, user: User, input: TopicVisibilityInput): Promise<void> {
  const topic = normalizeTopicInput(input.topic, realm);
  checkTopicLength(topic);
  const now = app.clock.now();
  await writeWithEvents(
    app,
    realm.id,
    async (tx) => {
      const { stream, mutedChannel } = await visibleStream(tx, user, input.stream, input.policy === VisibilityPolicy.NONE);
      // Unmuted only means something in a muted channel; elsewhere it is stored as none.
      const policy = input.policy === VisibilityPolicy.UNMUTED && !mutedChannel ? VisibilityPolicy.NONE : input.policy;
      const key = topicKey(topic);
      const current = await tx
        .selectFrom('user_topics')
        .selectAll()
        .where('user_id', '=', user.id)
        .where('stream_id', '=', stream.id)
        .where('topic_key', '=', key)
        .executeTakeFirst();
      const currentPolicy = current?.visibility_policy ?? VisibilityPolicy.NONE;
      // Setting the policy a topic already has succeeds and changes nothing (FL 169: no error).
      if (policy === currentPolicy && (policy === VisibilityPolicy.NONE || current?.topic === topic)) return [];
      if (policy === VisibilityPolicy.NONE) {
        await tx.deleteFrom('user_topics').where('user_id', '=', user.id).where('stream_id', '=', stream.id).where('topic_key', '=', key).execute();
      } else if (current) {
        await tx
          .updateTable('user_topics')
          .set({ topic, visibility_policy: policy, last_updated: now })
          .where('user_id', '=', user.id)
          .where('stream_id', '=', stream.id)
          .where('topic_key', '=', key)
          .execute();
      } else {
        await tx.insertInto('user_topics').values({ user_id: user.id, stream_id: stream.id, topic, topic_key: key, visibility_policy: policy, last_updated: now }).execute();
      }
      const emptyName = emptyTopicDisplayName(realm);
      const out: Outgoing[] = [];
      // The legacy event carries the whole muted list; queues that asked for user_topic do not get it.
      if ((currentPolicy === VisibilityPolicy.MUTED) !== (policy === VisibilityPolicy.MUTED)) {
        out.push(to([user.id], { type: 'muted_topics', muted_topics: await mutedTopicsList(tx, user.id), __empty_topic_name: emptyName }));
      }
      out.push(
        to([user.id], {
          type: 'user_topic',
          stream_id: stream.id,
          topic_name: topic,
          last_updated: now,
          visibility_policy: policy,
          __empty_topic_name: emptyName,
        }),
      );
      return out;
    },
    (events) => events,
  );
  emailWatchersChanged(app, realm.id);
}
