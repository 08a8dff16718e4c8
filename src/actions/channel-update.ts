// PATCH /streams/{stream_id}: rename, description, privacy, retention, topics policy, folder, default
// status, permission groups and unarchiving, with the stream update (and create/delete) events.
import type { Transaction } from 'kysely';
import type { AppContext } from '../context.js';
import type { DB, Realm, Stream, User } from '../store/schema.js';
import { badRequest } from '../core/api-error.js';
import { Role } from '../models/roles.js';
import { groupSettingValue, systemGroupIds } from '../lib/groups.js';
import { normalizeSettingValue, sameSettingValue } from '../lib/groups.js';
import { realmSettings } from '../lib/realm-settings.js';
import { canAccessContent, streamByName, streamPeerAudience, subscriberIds } from '../lib/streams/access.js';
import { accessChannelForAdmin, channelExists, type SettingUpdate } from '../lib/streams/administer.js';
import { checkStreamDescription, checkStreamName, renderStreamDescription } from '../lib/streams/names.js';
import { storeGroupSetting, streamPermissionIds } from '../lib/streams/permissions.js';
import { hasRealmPermission } from '../lib/groups.js';
import { streamDicts } from '../lib/streams/dicts.js';
import { activeFolder } from '../lib/channel-folders.js';
import { to, writeWithEvents, type Outgoing } from '../events/publish.js';
import { defaultStreamsEvent, setDefaultStream } from './default-streams.js';
import { unarchiveEvents } from './channel-archive.js';

export interface ChannelUpdate {
  newName?: string;
  description?: string;
  isPrivate?: boolean;
  isWebPublic?: boolean;
  historyPublicToSubscribers?: boolean;
  isDefaultStream?: boolean;
  /** null: the organization's default; -1: unlimited. */
  messageRetentionDays?: number | null;
  isArchived?: boolean;
  folderId?: number | null;
  topicsPolicy?: string;
  groupSettings: Record<string, SettingUpdate>;
}

type Tx = Transaction<DB>;

export async function doUpdateChannel(app: AppContext, realm: Realm, actor: User, streamId: number, u: ChannelUpdate): Promise<void> {
  await writeWithEvents(
    app,
    realm.id,
    async (tx) => {
      const { stream: original, subscribed } = await accessChannelForAdmin(tx, actor, streamId);
      let stream = original;
      const events: Outgoing[] = [];
      const audience = await streamPeerAudience(tx, stream);
      const update = (property: string, value: unknown, extra: Record<string, unknown> = {}) =>
        events.push(to(audience, { type: 'stream', op: 'update', stream_id: stream.id, name: stream.name, property, value, ...extra }));

      if (u.isArchived !== undefined) {
        if (u.isArchived) throw badRequest('Channels can only be archived with DELETE /streams/{stream_id}.');
        if (!stream.is_archived) throw badRequest('Channel is not archived.');
        await tx.updateTable('streams').set({ is_archived: 0 }).where('id', '=', stream.id).execute();
        stream = { ...stream, is_archived: 0 };
        events.push(...(await unarchiveEvents(tx, stream)));
      }
      if (u.newName !== undefined) {
        const name = checkStreamName(u.newName);
        if (name !== stream.name) {
          const other = await streamByName(tx, realm.id, name);
          if (other && other.id !== stream.id) throw channelExists(other.name);
          await tx.updateTable('streams').set({ name, name_key: name.toLowerCase() }).where('id', '=', stream.id).execute();
          update('name', name);
          stream = { ...stream, name, name_key: name.toLowerCase() };
        }
      }
      if (u.description !== undefined) {
        const description = checkStreamDescription(u.description);
        if (description !== stream.description) {
          const rendered = renderStreamDescription(description);
          await tx.updateTable('streams').set({ description, rendered_description: rendered }).where('id', '=', stream.id).execute();
          stream = { ...stream, description, rendered_description: rendered };
          update('description', description, { rendered_description: rendered });
        }
      }
      if (u.messageRetentionDays !== undefined) {
        if (actor.role !== Role.OWNER) throw badRequest('Must be an organization owner');
        if (u.messageRetentionDays !== stream.message_retention_days) {
          await tx.updateTable('streams').set({ message_retention_days: u.messageRetentionDays }).where('id', '=', stream.id).execute();
          stream = { ...stream, message_retention_days: u.messageRetentionDays };
          update('message_retention_days', u.messageRetentionDays);
        }
      }
      if (u.topicsPolicy !== undefined && u.topicsPolicy !== stream.topics_policy) {
        if (!(await hasRealmPermission(tx, actor, realm, 'can_set_topics_policy_group'))) throw badRequest('Insufficient permission');
        await tx.updateTable('streams').set({ topics_policy: u.topicsPolicy }).where('id', '=', stream.id).execute();
        stream = { ...stream, topics_policy: u.topicsPolicy };
        update('topics_policy', u.topicsPolicy);
      }
      if (u.folderId !== undefined && u.folderId !== stream.folder_id) {
        if (u.folderId !== null) await activeFolder(tx, realm.id, u.folderId);
        await tx.updateTable('streams').set({ folder_id: u.folderId }).where('id', '=', stream.id).execute();
        stream = { ...stream, folder_id: u.folderId };
        update('folder_id', u.folderId);
      }
      const sendBefore = (await streamDicts(tx, [stream])).get(stream.id)!;
      for (const [setting, change] of Object.entries(u.groupSettings)) {
        const ids = await streamPermissionIds(tx, stream);
        const current = await groupSettingValue(tx, ids[setting]);
        if (change.old !== undefined && !sameSettingValue(change.old, current)) throw badRequest("'old' value does not match the expected value.");
        if (sameSettingValue(change.new, current)) continue;
        // Settings other than who administers it need content access (subscription) on a private channel.
        if (setting !== 'can_administer_channel_group' && !canAccessContent(actor, stream, subscribed) && !(await isSubscribedNow(tx, actor.id, stream.id))) throw badRequest('Invalid channel ID');
        const groupId = await storeGroupSetting(tx, realm.id, setting, change.new, { creatorId: actor.id, now: app.clock.now() });
        const permissions = { ...ids, [setting]: groupId };
        await tx.updateTable('streams').set({ permissions: JSON.stringify(permissions) }).where('id', '=', stream.id).execute();
        stream = { ...stream, permissions: JSON.stringify(permissions) };
        update(setting, normalizeSettingValue(await groupSettingValue(tx, groupId)));
      }
      // Only a change to privacy, history or topic creation can break the rule: other edits pass.
      if (u.isPrivate !== undefined || u.isWebPublic !== undefined || u.historyPublicToSubscribers !== undefined || u.groupSettings.can_create_topic_group !== undefined) {
        await checkProtectedHistory(tx, stream, u);
      }
      const sendAfter = (await streamDicts(tx, [stream])).get(stream.id)!;
      // The legacy posting policy fields follow can_send_message_group.
      for (const legacy of ['stream_post_policy', 'is_announcement_only']) {
        if (sendBefore[legacy] !== sendAfter[legacy]) update(legacy, sendAfter[legacy]);
      }
      if (u.isPrivate !== undefined || u.isWebPublic !== undefined || u.historyPublicToSubscribers !== undefined) {
        const privacy = await changePrivacy(tx, realm, actor, stream, subscribed, u);
        if (privacy) {
          events.push(...privacy.events);
          stream = privacy.stream;
        }
      }
      if (u.isDefaultStream !== undefined) {
        if (actor.role > Role.ADMINISTRATOR) throw badRequest('Must be an organization administrator');
        if (u.isDefaultStream && stream.invite_only) throw badRequest('Private channels cannot be made default.');
        // As POST /default_streams: archiving takes a channel out of the defaults, so an archived one cannot go back in.
        if (u.isDefaultStream && stream.is_archived) throw badRequest('Archived channels cannot be made default.');
        if (await setDefaultStream(tx, realm.id, stream.id, u.isDefaultStream)) events.push(await defaultStreamsEvent(tx, realm.id));
      } else if (stream.invite_only && !original.invite_only && (await setDefaultStream(tx, realm.id, stream.id, false))) {
        // A channel made private stops being a default channel.
        events.push(await defaultStreamsEvent(tx, realm.id));
      }
      return events;
    },
    (events) => events,
  );
}

async function isSubscribedNow(tx: Tx, userId: number, streamId: number): Promise<boolean> {
  return (await subscriberIds(tx, streamId)).includes(userId);
}

/** A private channel with protected history needs can_create_topic_group to be role:everyone. */
async function checkProtectedHistory(tx: Tx, stream: Stream, u: ChannelUpdate): Promise<void> {
  const inviteOnly = u.isWebPublic ? false : (u.isPrivate ?? stream.invite_only === 1);
  const historyPublic = u.historyPublicToSubscribers ?? (u.isPrivate === false || u.isWebPublic ? true : stream.history_public_to_subscribers === 1);
  if (!inviteOnly || historyPublic) return;
  const ids = await streamPermissionIds(tx, stream);
  const groups = await systemGroupIds(tx, stream.realm_id);
  if (ids.can_create_topic_group !== groups['role:everyone']) throw badRequest('Invalid parameters');
}

/**
 * Privacy, web-public and history settings as one invite_only update; users who gain sight of the
 * channel get it created (and its subscribers through peer_add), users who lose it get a delete.
 */
async function changePrivacy(tx: Tx, realm: Realm, actor: User, stream: Stream, subscribed: boolean, u: ChannelUpdate): Promise<{ stream: Stream; events: Outgoing[] } | null> {
  const webPublic = u.isWebPublic ?? stream.is_web_public === 1;
  const inviteOnly = webPublic ? false : (u.isPrivate ?? stream.invite_only === 1);
  if (webPublic && u.isPrivate === true) throw badRequest('Invalid parameters');
  let historyPublic = u.historyPublicToSubscribers ?? (inviteOnly ? stream.history_public_to_subscribers === 1 : true);
  if (!inviteOnly && u.historyPublicToSubscribers === false) throw badRequest('Invalid parameters');
  if (!inviteOnly) historyPublic = true;
  const same = webPublic === (stream.is_web_public === 1) && inviteOnly === (stream.invite_only === 1) && historyPublic === (stream.history_public_to_subscribers === 1);
  if (same) return null;
  // Changing a private channel's privacy needs its content (the administrator must be subscribed).
  if (stream.invite_only && !subscribed) throw badRequest('Invalid channel ID');
  if (webPublic && !stream.is_web_public) {
    if (realmSettings(realm).enable_spectator_access !== true) throw badRequest('Web-public channels are not enabled.');
    if (!(await hasRealmPermission(tx, actor, realm, 'can_create_web_public_channel_group'))) throw badRequest('Insufficient permission');
  } else if (inviteOnly && !stream.invite_only) {
    if (!(await hasRealmPermission(tx, actor, realm, 'can_create_private_channel_group'))) throw badRequest('Insufficient permission');
  } else if (!inviteOnly && !webPublic && (stream.invite_only || stream.is_web_public) && !(await hasRealmPermission(tx, actor, realm, 'can_create_public_channel_group'))) {
    throw badRequest('Insufficient permission');
  }
  const before = new Set(await streamPeerAudience(tx, stream));
  await tx
    .updateTable('streams')
    .set({ invite_only: inviteOnly ? 1 : 0, is_web_public: webPublic ? 1 : 0, history_public_to_subscribers: historyPublic ? 1 : 0 })
    .where('id', '=', stream.id)
    .execute();
  const next: Stream = { ...stream, invite_only: inviteOnly ? 1 : 0, is_web_public: webPublic ? 1 : 0, history_public_to_subscribers: historyPublic ? 1 : 0 };
  const after = await streamPeerAudience(tx, next);
  const kept = after.filter((id) => before.has(id));
  const gained = after.filter((id) => !before.has(id));
  const lost = [...before].filter((id) => !after.includes(id));
  const events: Outgoing[] = [
    to(kept, { type: 'stream', op: 'update', stream_id: stream.id, name: stream.name, property: 'invite_only', value: inviteOnly, history_public_to_subscribers: historyPublic, is_web_public: webPublic }),
  ];
  if (gained.length) {
    // Created as with no subscribers, then the subscribers through peer_add: the same steps as for
    // a new channel, so that subscriber lists and counts come out right in every client.
    const dict = { ...(await streamDicts(tx, [next])).get(next.id)!, subscriber_count: 0 };
    events.push(to(gained, { type: 'stream', op: 'create', streams: [dict] }));
    const subs = await subscriberIds(tx, stream.id);
    if (subs.length) events.push(to(gained, { type: 'subscription', op: 'peer_add', stream_ids: [stream.id], user_ids: subs.sort((a, b) => a - b) }));
  }
  if (lost.length) events.push(to(lost, { type: 'stream', op: 'delete', streams: [{ stream_id: stream.id }], stream_ids: [stream.id] }));
  return { stream: next, events };
}
