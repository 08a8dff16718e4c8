// Channel administration: POST /channels/create, PATCH and DELETE /streams/{stream_id}, subscriber
// reads (/streams/{id}/members, /users/{id}/channels, /users/{id}/subscriptions/{stream_id}) and
// PATCH /users/me/subscriptions.
import { announceNewChannel } from '../actions/announcements.js';
import type { RouteList } from '../http/router.js';
import { endpoint } from '../http/endpoint.js';
import { badRequest } from '../core/api-error.js';
import { invalidParam, vIntList, vObject, vStrList } from '../core/params.js';
import { IdList, INT32_MAX, Type, bool, id, json, str, type ParamDecl } from '../core/param-types.js';
import type { GroupSettingValue } from '../lib/groups.js';
import { parseRetention, unquote, vSettingUpdate, type SettingUpdate } from '../lib/streams/administer.js';
import { vGroupSetting } from '../lib/streams/permissions.js';
import { channelMembers, subscriptionStatus, userChannelIds } from '../lib/streams/user-channels.js';
import { TOPICS_POLICIES } from '../actions/streams-create.js';
import { doCreateChannel } from '../actions/channel-create.js';
import { doUpdateChannel } from '../actions/channel-update.js';
import { doArchiveChannel } from '../actions/channel-archive.js';
import { doBulkUpdateSubscriptions } from '../actions/subscriptions-bulk.js';

const invalidChannel = () => badRequest('Invalid channel ID');
const streamId = { stream_id: id({ invalid: invalidChannel }) };

/** message_retention_days: "realm_default", "unlimited" or a number of days. */
const retention: ParamDecl<number | null> & { required: false; hasDefault: false } = {
  schema: Type.Union([Type.Literal('realm_default'), Type.Literal('unlimited'), Type.Integer({ minimum: 1, maximum: INT32_MAX })]),
  json: false,
  required: false,
  hasDefault: false,
  decode: (text) => parseRetention(text),
};

/** topics_policy, bare or JSON-quoted. */
const topicsPolicy: ParamDecl<string> & { required: false; hasDefault: false } = {
  schema: Type.Union(TOPICS_POLICIES.map((p) => Type.Literal(p))),
  json: false,
  required: false,
  hasDefault: false,
  decode: (text, name) => {
    const v = unquote(text);
    if (!(TOPICS_POLICIES as readonly string[]).includes(v)) throw invalidParam(`Invalid ${name}`, name);
    return v;
  },
};

/** folder_id: a folder ID, or null for no folder. */
function vFolderId(value: unknown, name: string): number | null {
  if (value === null) return null;
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) throw invalidParam(`${name} is not an integer`, name);
  return value;
}

const GroupValue = Type.Union([Type.Integer(), Type.Object({ direct_members: IdList, direct_subgroups: IdList })]);
const setting = () => json(GroupValue, { validate: vGroupSetting });
const settingUpdate = () => json(Type.Object({ new: GroupValue, old: Type.Optional(GroupValue) }), { validate: vSettingUpdate });

const createSettings = {
  can_add_subscribers_group: setting(),
  can_administer_channel_group: setting(),
  can_create_topic_group: setting(),
  can_delete_any_message_group: setting(),
  can_delete_own_message_group: setting(),
  can_move_messages_out_of_channel_group: setting(),
  can_move_messages_within_channel_group: setting(),
  can_remove_subscribers_group: setting(),
  can_resolve_topics_group: setting(),
  can_send_message_group: setting(),
  can_subscribe_group: setting(),
};
const updateSettings = {
  can_add_subscribers_group: settingUpdate(),
  can_administer_channel_group: settingUpdate(),
  can_create_topic_group: settingUpdate(),
  can_delete_any_message_group: settingUpdate(),
  can_delete_own_message_group: settingUpdate(),
  can_move_messages_out_of_channel_group: settingUpdate(),
  can_move_messages_within_channel_group: settingUpdate(),
  can_remove_subscribers_group: settingUpdate(),
  can_resolve_topics_group: settingUpdate(),
  can_send_message_group: settingUpdate(),
  can_subscribe_group: settingUpdate(),
};

/** The declared group settings that were sent. */
function sentSettings<T>(args: Record<string, unknown>): Record<string, T> {
  const out: Record<string, T> = {};
  for (const k of Object.keys(createSettings)) if (args[k] !== undefined) out[k] = args[k] as T;
  return out;
}

const createChannel = endpoint({
  summary: 'Create a channel',
  params: {
    name: str({ required: true }),
    description: str({ default: '' }),
    subscribers: json(IdList, { required: true, validate: vIntList }),
    announce: bool({ default: false }),
    invite_only: bool({ default: false }),
    is_web_public: bool({ default: false }),
    is_default_stream: bool({ default: false }),
    folder_id: json(Type.Union([Type.Integer({ minimum: 0, maximum: INT32_MAX }), Type.Null()]), { validate: vFolderId }),
    topics_policy: topicsPolicy,
    history_public_to_subscribers: bool(),
    message_retention_days: retention,
    ...createSettings,
  },
  response: Type.Object({ id: Type.Integer() }),
  run: async (req, a) => {
    const id = await doCreateChannel(req.app, req.realm, req.user, {
      name: a.name,
      description: a.description,
      subscribers: a.subscribers,
      folderId: a.folder_id ?? null,
      inviteOnly: a.invite_only,
      isWebPublic: a.is_web_public,
      historyPublicToSubscribers: a.history_public_to_subscribers,
      messageRetentionDays: a.message_retention_days,
      topicsPolicy: a.topics_policy,
      groupSettings: sentSettings<GroupSettingValue>(a),
      isDefaultStream: a.is_default_stream,
    });
    if (a.announce) await announceNewChannel(req.app, req.realm, req.user, id);
    return { id };
  },
});

const updateChannel = endpoint({
  summary: 'Update a channel',
  path: streamId,
  params: {
    description: str(),
    new_name: str(),
    is_private: bool(),
    is_web_public: bool(),
    history_public_to_subscribers: bool(),
    is_default_stream: bool(),
    message_retention_days: retention,
    is_archived: bool(),
    folder_id: json(Type.Union([Type.Integer({ minimum: 0, maximum: INT32_MAX }), Type.Null()]), { validate: vFolderId }),
    topics_policy: topicsPolicy,
    ...updateSettings,
  },
  response: Type.Object({}),
  run: async (req, a) => {
    const groupSettings = sentSettings<SettingUpdate>(a);
    const given = [a.description, a.new_name, a.is_private, a.is_web_public, a.history_public_to_subscribers, a.is_default_stream, a.message_retention_days, a.is_archived, a.folder_id, a.topics_policy];
    if (given.every((v) => v === undefined) && !Object.keys(groupSettings).length) throw badRequest('No new data supplied');
    await doUpdateChannel(req.app, req.realm, req.user, a.stream_id, {
      newName: a.new_name,
      description: a.description,
      isPrivate: a.is_private,
      isWebPublic: a.is_web_public,
      historyPublicToSubscribers: a.history_public_to_subscribers,
      isDefaultStream: a.is_default_stream,
      messageRetentionDays: a.message_retention_days,
      isArchived: a.is_archived,
      folderId: a.folder_id,
      topicsPolicy: a.topics_policy,
      groupSettings,
    });
    return {};
  },
});

const archiveChannel = endpoint({
  summary: 'Archive a channel',
  path: streamId,
  response: Type.Object({}),
  run: async (req, a) => {
    await doArchiveChannel(req.app, req.realm, req.user, a.stream_id);
    return {};
  },
});

const getMembers = endpoint({
  summary: 'Get channel subscribers',
  path: streamId,
  response: Type.Object({ subscribers: IdList }),
  run: async (req, a) => ({ subscribers: await req.app.store.read((tx) => channelMembers(tx, req.user, a.stream_id)) }),
});

const noSuchUser = () => badRequest('No such user');

const getUserChannels = endpoint({
  summary: "Get a user's subscribed channels",
  path: { user_id: id({ invalid: noSuchUser }) },
  response: Type.Object({ subscribed_channel_ids: IdList }),
  run: async (req, a) => ({ subscribed_channel_ids: await req.app.store.read((tx) => userChannelIds(tx, req.realm, req.user, a.user_id)) }),
});

const getSubscriptionStatus = endpoint({
  summary: 'Get subscription status',
  path: { user_id: id({ invalid: noSuchUser }), ...streamId },
  response: Type.Object({ is_subscribed: Type.Boolean() }),
  run: async (req, a) => ({ is_subscribed: await req.app.store.read((tx) => subscriptionStatus(tx, req.realm, req.user, a.user_id, a.stream_id)) }),
});

const AddItem = Type.Object({ name: Type.String(), color: Type.Optional(Type.String()), description: Type.Optional(Type.String()) }, { additionalProperties: false });
type AddRequest = { name: string; color?: string; description?: string };

/** The add list: objects with a name and optional color and description strings. */
function vAddList(value: unknown, name: string): AddRequest[] {
  if (!Array.isArray(value)) throw invalidParam(`${name} is not a list`, name);
  return value.map((item, i) => {
    const o = vObject(item, `${name}[${i}]`);
    if (typeof o.name !== 'string') throw invalidParam(`${name}[${i}]["name"] is not a string`, name);
    for (const k of ['color', 'description']) if (o[k] !== undefined && typeof o[k] !== 'string') throw invalidParam(`${name}[${i}]["${k}"] is not a string`, name);
    return { name: o.name, color: o.color as string | undefined, description: o.description as string | undefined };
  });
}

const NamesByUser = Type.Record(Type.String(), Type.Array(Type.String()));

const updateSubscriptions = endpoint({
  summary: 'Update subscriptions',
  params: {
    delete: json(Type.Array(Type.String()), { default: [] as string[], validate: vStrList }),
    add: json(Type.Array(AddItem), { default: [] as AddRequest[], validate: vAddList }),
  },
  response: Type.Object({ subscribed: NamesByUser, already_subscribed: NamesByUser, removed: Type.Array(Type.String()), not_removed: Type.Array(Type.String()) }),
  run: async (req, a) => {
    if (!a.add.length && !a.delete.length) throw badRequest("Nothing to do. Specify at least one of 'add' or 'delete'.");
    return doBulkUpdateSubscriptions(req.app, req.realm, req.user, { add: a.add, delete: a.delete });
  },
});

export const routes: RouteList = [
  ['channels/create', { POST: createChannel }],
  ['streams/{stream_id:int}', { PATCH: updateChannel, DELETE: archiveChannel }],
  ['streams/{stream_id:int}/members', { GET: getMembers }],
  ['users/{user_id:int}/channels', { GET: getUserChannels }],
  ['users/{user_id:int}/subscriptions/{stream_id:int}', { GET: getSubscriptionStatus }],
  ['users/me/subscriptions', { PATCH: updateSubscriptions }],
];
