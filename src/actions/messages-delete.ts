// Deleting a message: permission, its rows, reactions and search entry, the channel's first message,
// and the delete_message event to everyone who had it.
import type { AppContext } from '../context.js';
import type { Realm, User } from '../store/schema.js';
import { writeWithEvents, type Outgoing } from '../events/publish.js';
import { accessMessage } from '../lib/messages/access.js';
import { checkCanDelete } from '../lib/messages/edit-rules.js';
import { unindexMessages } from '../lib/messages/search.js';
import { emptyTopicDisplayName } from '../lib/realm-settings.js';
import { refreshFirstMessageIds } from './messages-common.js';

export async function doDeleteMessage(app: AppContext, realm: Realm, user: User, messageId: number): Promise<void> {
  const now = app.clock.now();
  await writeWithEvents(
    app,
    realm.id,
    async (tx) => {
      const { message, stream } = await accessMessage(tx, user, messageId);
      await checkCanDelete(tx, realm, user, message, stream, now);
      const holders = (await tx.selectFrom('user_messages').select('user_id').where('message_id', '=', message.id).execute()).map((r) => r.user_id);
      await tx.deleteFrom('reactions').where('message_id', '=', message.id).execute();
      await tx.deleteFrom('user_messages').where('message_id', '=', message.id).execute();
      await unindexMessages(tx, app.store.dialect, [message.id]);
      await tx.deleteFrom('messages').where('id', '=', message.id).execute();
      const event = stream
        ? { type: 'delete_message', message_ids: [message.id], message_type: 'stream', stream_id: stream.id, topic: message.topic, __empty_topic_name: emptyTopicDisplayName(realm) }
        : { type: 'delete_message', message_ids: [message.id], message_type: 'private' };
      const outgoing: Outgoing[] = [{ users: holders, event }];
      if (stream && stream.first_message_id === message.id) outgoing.push(...(await refreshFirstMessageIds(tx, [stream.id])));
      return outgoing;
    },
    (events) => events,
  );
}
