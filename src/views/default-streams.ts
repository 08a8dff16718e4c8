// Default channels: POST and DELETE /default_streams.
import type { RouteList } from '../http/router.js';
import { endpoint } from '../http/endpoint.js';
import { badRequest } from '../core/api-error.js';
import { Type, id } from '../core/param-types.js';
import { doAddDefaultStream, doRemoveDefaultStream } from '../actions/default-streams.js';

const streamParam = { stream_id: id({ required: true, invalid: () => badRequest('Invalid channel ID') }) };

const add = endpoint({
  summary: 'Add a default channel',
  params: streamParam,
  response: Type.Object({}),
  run: async (req, a) => {
    await doAddDefaultStream(req.app, req.realm, req.user, a.stream_id);
    return {};
  },
});

const remove = endpoint({
  summary: 'Remove a default channel',
  params: streamParam,
  response: Type.Object({}),
  run: async (req, a) => {
    await doRemoveDefaultStream(req.app, req.realm, req.user, a.stream_id);
    return {};
  },
});

export const routes: RouteList = [['default_streams', { POST: add, DELETE: remove }]];
