// GET /streams/{stream_id}/email_address: the channel's email-gateway address.
import type { RouteList } from '../http/router.js';
import { authed } from '../http/handlers.js';
import { doGetChannelEmail } from '../actions/channel-email.js';

const getEmailAddress = authed(async (req) => {
  const email = await doGetChannelEmail(req.app, req.realm, req.user, Number(req.pathParams.stream_id), req.params.int('sender_id'));
  return { email };
});

export const routes: RouteList = [['streams/{stream_id:int}/email_address', { GET: getEmailAddress }]];
