// Archiving (DELETE /streams/{stream_id}) and the events of unarchiving: clients that declared
// archived_channels get is_archived updates; others see the channel deleted, then created again.
import type { AppContext } from '../context.js';
import type { Realm, Stream, User } from '../store/schema.js';
import type { Tx } from '../store/store.js';
import { badRequest } from '../core/api-error.js';
import { streamPeerAudience, subscriberIds } from '../lib/streams/access.js';
import { accessChannelForAdmin } from '../lib/streams/administer.js';
import { streamDicts } from '../lib/streams/dicts.js';
import { subscribersByStream } from '../lib/streams/subscribers.js';
import { notificationDefaults, presentSubscription } from '../presenters/subscription.js';
import { effectiveUserSettings } from '../models/user-settings.js';
import { logInTransaction, publishLogged, to, type Outgoing } from '../events/publish.js';
import { activeUserIds } from '../lib/users.js';
import { REALM_SETTING_PROPS } from '../models/realm-setting-props.js';
import type { EventBody } from '../events/types.js';
import { defaultStreamsEvent, setDefaultStream } from './default-streams.js';

const CAPABILITY = 'archived_channels';

function isArchivedUpdate(stream: Stream, value: boolean): EventBody {
  return { type: 'stream', op: 'update', stream_id: stream.id, name: stream.name, property: 'is_archived', value };
}

/** Archived channels count as inactive (presenters/stream.ts): capable clients get that change too. */
function recentlyActive(users: number[], stream: Stream, value: boolean): Outgoing {
  return { users, event: { type: 'stream', op: 'update', stream_id: stream.id, name: stream.name, property: 'is_recently_active', value }, withoutCapability: { capability: CAPABILITY, events: [] } };
}

export async function doArchiveChannel(app: AppContext, realm: Realm, actor: User, streamId: number): Promise<void> {
  const { result, stamp } = await app.store.write(async (tx) => {
    const { stream } = await accessChannelForAdmin(tx, actor, streamId);
    if (stream.is_archived) throw badRequest('Channel is already archived.');
    await tx.updateTable('streams').set({ is_archived: 1 }).where('id', '=', stream.id).execute();
    const users = await streamPeerAudience(tx, stream);
    const events: Outgoing[] = [
      {
        users,
        event: isArchivedUpdate(stream, true),
        withoutCapability: { capability: CAPABILITY, events: [{ type: 'stream', op: 'delete', streams: [{ stream_id: stream.id }], stream_ids: [stream.id] }] },
      },
    ];
    events.push(recentlyActive(users, stream, false));
    // An archived channel is no one's default channel.
    if (await setDefaultStream(tx, realm.id, stream.id, false)) events.push(await defaultStreamsEvent(tx, realm.id));
    events.push(...(await dropChannelSettings(tx, realm.id, stream.id)));
    // Logged in this transaction, delivered below once the organization row is dropped from the caches.
    return { realmChanged: events.some((o) => o.event.type === 'realm'), row: await logInTransaction(app, tx, realm.id, events) };
  });
  // Every node re-reads the organization row when a channel setting was reset.
  if (result.realmChanged) app.caches.realmChanged(realm.id);
  publishLogged(app, result.row, stamp);
}

/** The organization settings that name a channel (moderation requests, the announcement channels). */
const CHANNEL_SETTINGS = Object.entries(REALM_SETTING_PROPS)
  .filter(([, prop]) => prop.kind === 'channel')
  .map(([name]) => name);

/**
 * Nothing can be posted to an archived channel: as the original, archiving one that an
 * organization setting names (the moderation request channel, an announcement channel) sets that
 * setting to none (-1), with the realm update every user's state needs.
 */
async function dropChannelSettings(tx: Tx, realmId: number, streamId: number): Promise<Outgoing[]> {
  const row = await tx.selectFrom('realms').select('settings').where('id', '=', realmId).executeTakeFirstOrThrow();
  const overrides = JSON.parse(row.settings || '{}') as Record<string, unknown>;
  const dropped = CHANNEL_SETTINGS.filter((name) => overrides[name] === streamId);
  if (dropped.length === 0) return [];
  // -1 is the default: only overrides are stored.
  for (const name of dropped) delete overrides[name];
  await tx.updateTable('realms').set({ settings: JSON.stringify(overrides) }).where('id', '=', realmId).execute();
  const users = await activeUserIds(tx, realmId);
  return dropped.map((property) => to(users, { type: 'realm', op: 'update', property, value: -1 }));
}

/**
 * Events of a channel just unarchived (its row already updated in tx). Clients without the
 * capability get it created as new (no subscribers, then peer_add), and its subscribers also get
 * their subscription back.
 */
export async function unarchiveEvents(tx: Tx, stream: Stream): Promise<Outgoing[]> {
  const users = await streamPeerAudience(tx, stream);
  const dict = (await streamDicts(tx, [stream])).get(stream.id)!;
  const subs = (await subscriberIds(tx, stream.id)).sort((a, b) => a - b);
  const subscribers = (await subscribersByStream(tx, [stream.id])).get(stream.id) ?? [];
  const created: EventBody[] = [{ type: 'stream', op: 'create', streams: [{ ...dict, subscriber_count: 0 }] }];
  if (subs.length) created.push({ type: 'subscription', op: 'peer_add', stream_ids: [stream.id], user_ids: subs });
  const subscribed = new Set(subs);
  const events: Outgoing[] = [{ users: users.filter((id) => !subscribed.has(id)), event: isArchivedUpdate(stream, false), withoutCapability: { capability: CAPABILITY, events: created } }];
  const rows = await tx
    .selectFrom('subscriptions')
    .innerJoin('users', 'users.id', 'subscriptions.user_id')
    .selectAll('subscriptions')
    .select('users.settings as user_settings')
    .where('subscriptions.stream_id', '=', stream.id)
    .where('subscriptions.active', '=', 1)
    .where('subscriptions.user_id', 'in', subs.length ? subs : [0])
    .execute();
  for (const { user_settings, ...row } of rows) {
    const defaults = notificationDefaults(effectiveUserSettings(user_settings));
    const add: EventBody = { type: 'subscription', op: 'add', subscriptions: [presentSubscription(dict, row, { subscribers })], __notification_defaults: defaults };
    events.push({ users: [row.user_id], event: isArchivedUpdate(stream, false), withoutCapability: { capability: CAPABILITY, events: [...created, add] } });
  }
  events.push(recentlyActive(users, stream, true));
  return events;
}
