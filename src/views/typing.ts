// POST /typing (composing a direct or channel message) and POST /messages/{message_id}/typing (editing one).
import type { RouteList } from '../http/router.js';
import { endpoint } from '../http/endpoint.js';
import { badRequest } from '../core/api-error.js';
import { vIntList } from '../core/params.js';
import { IdList, Type, id, json, oneOf, str } from '../core/param-types.js';
import { doTypingChannel, doTypingDirect, doTypingEditMessage } from '../actions/typing.js';

const OPS = ['start', 'stop'] as const;
/** "private" was retired at the original's FL 215; "channel" is "stream" renamed. */
const TYPES = ['direct', 'stream', 'channel'] as const;

const setTyping = endpoint({
  summary: 'Set typing status',
  params: {
    type: oneOf(TYPES, { default: 'direct' }),
    op: oneOf(OPS, { required: true }),
    // Each form ignores the other form's parameters; declaring them keeps them out of ignored_parameters_unsupported.
    to: json(IdList, { validate: vIntList, description: 'Direct message: the recipients’ user IDs.' }),
    stream_id: id({ description: 'Channel message: the channel.' }),
    topic: str({ description: 'Channel message: the topic.' }),
  },
  response: Type.Object({}),
  run: async (req, a) => {
    if (a.type === 'direct') {
      if (a.to === undefined) throw badRequest("Missing 'to' argument");
      await doTypingDirect(req.app, req.realm, req.user, a.to, a.op);
      return {};
    }
    if (a.stream_id === undefined) throw badRequest('Missing channel ID');
    if (a.topic === undefined) throw badRequest('Missing topic');
    await doTypingChannel(req.app, req.realm, req.user, a.stream_id, a.topic, a.op);
    return {};
  },
});

const setEditTyping = endpoint({
  summary: 'Set typing status for message editing',
  path: { message_id: id({ invalid: () => badRequest('Invalid message(s)') }) },
  params: { op: oneOf(OPS, { required: true }) },
  response: Type.Object({}),
  run: async (req, a) => {
    await doTypingEditMessage(req.app, req.realm, req.user, a.message_id, a.op);
    return {};
  },
});

export const routes: RouteList = [
  ['typing', { POST: setTyping }],
  ['messages/{message_id:int}/typing', { POST: setEditTyping }],
];
