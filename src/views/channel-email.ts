// GET /streams/{stream_id}/email_address: the channel's email-gateway address.
import type { RouteList } from '../http/router.js';
import { endpoint } from '../http/endpoint.js';
import { badRequest } from '../core/api-error.js';
import { Type, id } from '../core/param-types.js';
import { doGetChannelEmail } from '../actions/channel-email.js';

const getEmailAddress = endpoint({
  summary: 'Get channel’s email address',
  path: { stream_id: id({ invalid: () => badRequest('Invalid channel ID') }) },
  params: { sender_id: id({ invalid: () => badRequest('Invalid sender_id') }) },
  response: Type.Object({ email: Type.String() }),
  run: async (req, a) => ({ email: await doGetChannelEmail(req.app, req.realm, req.user, a.stream_id, a.sender_id) }),
});

export const routes: RouteList = [['streams/{stream_id:int}/email_address', { GET: getEmailAddress }]];
