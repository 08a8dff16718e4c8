// Channel reads: GET /streams, /streams/{stream_id}, /get_stream_id and /users/me/{stream_id}/topics.
import type { RouteList } from '../http/router.js';
import { authed } from '../http/handlers.js';
import { badRequest } from '../core/api-error.js';
import { toInt } from '../core/params.js';
import { Role } from '../models/roles.js';
import { emptyTopicDisplayName } from '../lib/realm-settings.js';
import { accessStreamById, accessStreamByName } from '../lib/streams/access.js';
import { streamDicts } from '../lib/streams/dicts.js';
import { listStreams, streamTopics } from '../lib/streams/read.js';

const getStreams = authed(async (req) => {
  const p = req.params;
  const includeAll = p.bool('include_all', false) || p.bool('include_all_active', false);
  if (includeAll && req.user.role > Role.ADMINISTRATOR) throw badRequest('User not authorized for this query');
  const opts = {
    includePublic: p.bool('include_public', true),
    includeWebPublic: p.bool('include_web_public', false),
    includeSubscribed: p.bool('include_subscribed', true),
    includeAll,
    includeDefault: p.bool('include_default', false),
    includeOwnerSubscribed: p.bool('include_owner_subscribed', false),
    includeCanAccessContent: p.bool('include_can_access_content', false),
    excludeArchived: p.bool('exclude_archived', true),
  };
  const streams = await req.app.store.read((tx) => listStreams(tx, req.realm, req.user, opts));
  return { streams };
});

const getStream = authed(async (req) => {
  const id = toInt(req.pathParams.stream_id, 'stream_id');
  const stream = await req.app.store.read(async (tx) => {
    const { stream: s } = await accessStreamById(tx, req.user, id);
    return (await streamDicts(tx, [s])).get(s.id);
  });
  return { stream };
});

const getStreamId = authed(async (req) => {
  const name = req.params.reqStr('stream');
  const { stream } = await req.app.store.read((tx) => accessStreamByName(tx, req.user, name));
  return { stream_id: stream.id };
});

const getTopics = authed(async (req) => {
  const id = toInt(req.pathParams.stream_id, 'stream_id');
  const allowEmpty = req.params.bool('allow_empty_topic_name', false);
  const topics = await req.app.store.read(async (tx) => {
    const { stream } = await accessStreamById(tx, req.user, id, { requireContent: true });
    return streamTopics(tx, req.user, stream);
  });
  const display = emptyTopicDisplayName(req.realm);
  return { topics: allowEmpty ? topics : topics.map((t) => (t.name === '' ? { ...t, name: display } : t)) };
});

export const routes: RouteList = [
  ['streams', { GET: getStreams }],
  ['streams/{stream_id:int}', { GET: getStream }],
  ['get_stream_id', { GET: getStreamId }],
  ['users/me/{stream_id:int}/topics', { GET: getTopics }],
];
