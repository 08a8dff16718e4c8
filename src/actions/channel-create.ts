// POST /channels/create: one new channel with its settings, folder and initial subscribers; stream
// create, subscription add and peer_add events as for a channel created by subscribing.
import type { AppContext } from '../context.js';
import type { Realm, Subscription, User } from '../store/schema.js';
import { badRequest } from '../core/api-error.js';
import { Role } from '../models/roles.js';
import { effectiveUserSettings } from '../models/user-settings.js';
import { pickStreamColor } from '../lib/streams-create.js';
import { streamByName, streamPeerAudience } from '../lib/streams/access.js';
import { channelExists } from '../lib/streams/administer.js';
import { checkStreamDescription, checkStreamName, renderStreamDescription } from '../lib/streams/names.js';
import { resolvePrincipals } from '../lib/streams/principals.js';
import { streamDicts } from '../lib/streams/dicts.js';
import { subscribersByStream } from '../lib/streams/subscribers.js';
import { activeFolder } from '../lib/channel-folders.js';
import { nextMessageId } from '../lib/messages/unread.js';
import { accessChangeEvents, accessSnapshot } from '../lib/user-access.js';
import { notificationDefaults, presentSubscription } from '../presenters/subscription.js';
import { writeWithEvents, to, type Outgoing } from '../events/publish.js';
import { checkCanCreateStreams, createStream, type NewStreamSettings } from './streams-create.js';
import { defaultStreamsEvent } from './default-streams.js';

export interface CreateChannelInput extends NewStreamSettings {
  name: string;
  description: string;
  subscribers: number[];
  folderId: number | null;
}

export async function doCreateChannel(app: AppContext, realm: Realm, actor: User, input: CreateChannelInput): Promise<number> {
  const now = app.clock.now();
  const { result } = await writeWithEvents(
    app,
    realm.id,
    async (tx) => {
      const name = checkStreamName(input.name);
      const description = checkStreamDescription(input.description);
      const existing = await streamByName(tx, realm.id, name);
      if (existing) throw channelExists(existing.name);
      await checkCanCreateStreams(tx, realm, actor, input);
      if (input.folderId !== null) await activeFolder(tx, realm.id, input.folderId);
      const users = input.subscribers.length ? await resolvePrincipals(tx, realm.id, input.subscribers) : [];
      if (users.some((u) => u.id !== actor.id) && actor.role === Role.GUEST) throw badRequest('Insufficient permission');
      const access = await accessSnapshot(tx, realm);

      let stream = await createStream(tx, realm, actor, { name, description, renderedDescription: renderStreamDescription(description) }, input, now);
      if (input.folderId !== null) {
        await tx.updateTable('streams').set({ folder_id: input.folderId }).where('id', '=', stream.id).execute();
        stream = { ...stream, folder_id: input.folderId };
      }
      const before = (await streamDicts(tx, [stream])).get(stream.id)!;
      const floor = await nextMessageId(tx);
      const rows: { user: User; row: Subscription }[] = [];
      for (const u of users.sort((a, b) => a.id - b.id)) {
        const c = await tx.selectFrom('subscriptions').select((eb) => eb.fn.countAll<number>().as('n')).where('user_id', '=', u.id).executeTakeFirstOrThrow();
        const row = await tx
          .insertInto('subscriptions')
          .values({ user_id: u.id, stream_id: stream.id, active: 1, is_muted: 0, pin_to_top: 0, color: pickStreamColor(Number(c.n)), unread_floor: floor })
          .returningAll()
          .executeTakeFirstOrThrow();
        rows.push({ user: u, row });
      }
      const after = (await streamDicts(tx, [stream])).get(stream.id)!;
      const subscribers = (await subscribersByStream(tx, [stream.id])).get(stream.id) ?? [];
      const audience = await streamPeerAudience(tx, stream);
      const events: Outgoing[] = [to(audience, { type: 'stream', op: 'create', streams: [before] })];
      for (const { user, row } of rows) {
        events.push(to([user.id], { type: 'subscription', op: 'add', subscriptions: [presentSubscription(after, row, { subscribers })], __notification_defaults: notificationDefaults(effectiveUserSettings(user.settings)) }));
      }
      const added = rows.map((r) => r.user.id);
      if (added.length) events.push(to(audience.filter((id) => !added.includes(id)), { type: 'subscription', op: 'peer_add', stream_ids: [stream.id], user_ids: added }));
      if (input.isDefaultStream) events.push(await defaultStreamsEvent(tx, realm.id));
      events.unshift(...(await accessChangeEvents(tx, realm, access)));
      return { id: stream.id, events };
    },
    (r) => r.events,
  );
  return result.id;
}
