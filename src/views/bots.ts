// Bot administration: PATCH and DELETE /bots/{bot_id}, the bot's API key (GET, regenerate).
import type { RouteList } from '../http/router.js';
import { endpoint } from '../http/endpoint.js';
import { badRequest } from '../core/api-error.js';
import { invalidParam } from '../core/params.js';
import { Type, bool, id, int, json, str } from '../core/param-types.js';
import { ROLE_CODES } from '../models/roles.js';
import { accessBot } from '../lib/bots.js';
import { doDeactivateBot, doRegenerateBotApiKey, doUpdateBot } from '../actions/bots-admin.js';

const botId = { bot_id: id({ invalid: () => badRequest('No such bot') }) };

const update = endpoint({
  summary: 'Update a bot',
  path: botId,
  params: {
    role: json(Type.Union(ROLE_CODES.map((c) => Type.Literal(c))), {
      validate: (v, n) => {
        if (typeof v !== 'number' || !ROLE_CODES.includes(v)) throw invalidParam('Invalid role', n);
        return v;
      },
    }),
    full_name: str(),
    // Any 32-bit value: an unknown owner (negative too) is the action's "no such user".
    bot_owner_id: int(),
    default_sending_stream: str(),
    default_events_register_stream: str(),
    default_all_public_streams: bool(),
  },
  response: Type.Object({}),
  run: async (req, a) => {
    await doUpdateBot(req.app, req.realm, req.user, a.bot_id, {
      fullName: a.full_name,
      ownerId: a.bot_owner_id,
      defaultSendingStream: a.default_sending_stream,
      defaultEventsRegisterStream: a.default_events_register_stream,
      defaultAllPublicStreams: a.default_all_public_streams,
      role: a.role,
    });
    return {};
  },
});

const deactivate = endpoint({
  summary: 'Deactivate a bot',
  path: botId,
  response: Type.Object({}),
  run: async (req, a) => {
    await doDeactivateBot(req.app, req.realm, req.user, a.bot_id);
    return {};
  },
});

const apiKey = endpoint({
  summary: "Get a bot's API key",
  path: botId,
  response: Type.Object({ api_key: Type.String() }),
  run: async (req, a) => {
    const bot = await req.app.store.read((tx) => accessBot(tx, req.realm, req.user, a.bot_id));
    return { api_key: bot.api_key };
  },
});

const regenerate = endpoint({
  summary: "Regenerate a bot's API key",
  path: botId,
  response: Type.Object({ api_key: Type.String() }),
  run: async (req, a) => ({ api_key: await doRegenerateBotApiKey(req.app, req.realm, req.user, a.bot_id) }),
});

export const routes: RouteList = [
  ['bots/{bot_id:int}', { PATCH: update, DELETE: deactivate }],
  ['bots/{bot_id:int}/api_key', { GET: apiKey }],
  ['bots/{bot_id:int}/api_key/regenerate', { POST: regenerate }],
];
