// Incoming webhooks: POST /external/json (the original's generic JSON integration), authenticated by
// the api_key in the URL (or Basic credentials); the payload goes to ?stream=…&topic=… or, without a
// channel, to the bot's owner.
import type { RouteList } from '../http/router.js';
import { endpoint } from '../http/endpoint.js';
import { Type, str } from '../core/param-types.js';
import { missing } from '../core/params.js';
import { jsonWebhookContent, webhookUser } from '../lib/incoming-webhooks.js';
import { doSendMessage } from '../actions/messages-send.js';

const jsonWebhook = endpoint({
  summary: 'Incoming webhook: any JSON payload, pretty-printed',
  auth: 'optional',
  params: {
    api_key: str({ description: "The sending bot's API key (or send Basic credentials)." }),
    stream: str({ description: 'Channel name or ID; without it, the message goes to the bot owner.' }),
    topic: str({ description: 'Default "JSON".' }),
  },
  response: Type.Object({}),
  run: async (req, a) => {
    let user = req.user;
    if (!user) {
      if (a.api_key === undefined) throw missing('api_key');
      user = await webhookUser(req.app, req.realm, a.api_key);
    }
    const content = jsonWebhookContent(req.jsonBody);
    const client = 'ParleyJSONWebhook';
    if (a.stream === undefined) {
      await doSendMessage(req.app, req.realm, user, { kind: 'private', dmTo: [user.bot_owner_id ?? user.id], content, readBySender: true, clientName: client });
    } else {
      const stream = /^\d+$/.test(a.stream) && Number(a.stream) <= 2147483647 ? Number(a.stream) : a.stream;
      await doSendMessage(req.app, req.realm, user, { kind: 'stream', stream, topic: a.topic ?? 'JSON', content, readBySender: true, clientName: client });
    }
    return {};
  },
});

export const routes: RouteList = [['external/json', { POST: jsonWebhook }]];
