// Channel reads: GET /streams, /streams/{stream_id}, /get_stream_id and /users/me/{stream_id}/topics.
import type { RouteList } from '../http/router.js';
import { endpoint } from '../http/endpoint.js';
import { badRequest } from '../core/api-error.js';
import { Type, bool, id, loose, str } from '../core/param-types.js';
import { Role } from '../models/roles.js';
import { emptyTopicDisplayName } from '../lib/realm-settings.js';
import { accessStreamById, accessStreamByName } from '../lib/streams/access.js';
import { streamDicts } from '../lib/streams/dicts.js';
import { listStreams, streamTopics } from '../lib/streams/read.js';

/** A path channel ID past 32 bits names no channel: the answer an unknown ID gets. */
export const streamIdPath = { stream_id: id({ invalid: () => badRequest('Invalid channel ID') }) };

/** A channel as src/lib/streams/dicts.ts presents it. */
export const Channel = loose(
  Type.Object({
    stream_id: Type.Integer(),
    name: Type.String(),
    description: Type.String(),
    invite_only: Type.Boolean(),
    is_web_public: Type.Boolean(),
    is_archived: Type.Boolean(),
  }),
);

const getStreams = endpoint({
  summary: 'Get all channels',
  params: {
    include_public: bool({ default: true }),
    include_web_public: bool({ default: false }),
    include_subscribed: bool({ default: true }),
    include_all: bool({ default: false }),
    include_all_active: bool({ default: false, description: 'Deprecated: include_all.' }),
    include_default: bool({ default: false }),
    include_owner_subscribed: bool({ default: false }),
    include_can_access_content: bool({ default: false }),
    exclude_archived: bool({ default: true }),
  },
  response: Type.Object({ streams: Type.Array(Channel) }),
  run: async (req, a) => {
    const includeAll = a.include_all || a.include_all_active;
    if (includeAll && req.user.role > Role.ADMINISTRATOR) throw badRequest('User not authorized for this query');
    const opts = {
      includePublic: a.include_public,
      includeWebPublic: a.include_web_public,
      includeSubscribed: a.include_subscribed,
      includeAll,
      includeDefault: a.include_default,
      includeOwnerSubscribed: a.include_owner_subscribed,
      includeCanAccessContent: a.include_can_access_content,
      excludeArchived: a.exclude_archived,
    };
    const streams = await req.app.store.read((tx) => listStreams(tx, req.realm, req.user, opts));
    return { streams };
  },
});

const getStream = endpoint({
  summary: 'Get a channel by ID',
  path: streamIdPath,
  response: Type.Object({ stream: Channel }),
  run: async (req, a) => {
    const stream = await req.app.store.read(async (tx) => {
      const { stream: s } = await accessStreamById(tx, req.user, a.stream_id);
      return (await streamDicts(tx, [s])).get(s.id)!;
    });
    return { stream };
  },
});

const getStreamId = endpoint({
  summary: 'Get channel ID',
  params: { stream: str({ required: true, description: 'The channel’s name.' }) },
  response: Type.Object({ stream_id: Type.Integer() }),
  run: async (req, a) => {
    const { stream } = await req.app.store.read((tx) => accessStreamByName(tx, req.user, a.stream));
    return { stream_id: stream.id };
  },
});

const getTopics = endpoint({
  summary: 'Get topics in a channel',
  path: streamIdPath,
  params: { allow_empty_topic_name: bool({ default: false }) },
  response: Type.Object({ topics: Type.Array(Type.Object({ name: Type.String(), max_id: Type.Integer() })) }),
  run: async (req, a) => {
    const topics = await req.app.store.read(async (tx) => {
      const { stream } = await accessStreamById(tx, req.user, a.stream_id, { requireContent: true });
      return streamTopics(tx, req.user, stream);
    });
    const display = emptyTopicDisplayName(req.realm);
    return { topics: a.allow_empty_topic_name ? topics : topics.map((t) => (t.name === '' ? { ...t, name: display } : t)) };
  },
});

export const routes: RouteList = [
  ['streams', { GET: getStreams }],
  ['streams/{stream_id:int}', { GET: getStream }],
  ['get_stream_id', { GET: getStreamId }],
  ['users/me/{stream_id:int}/topics', { GET: getTopics }],
];
