// Bot administration: PATCH and DELETE /bots/{bot_id}, the bot's API key (GET, regenerate).
import type { RouteList } from '../http/router.js';
import { authed } from '../http/handlers.js';
import { invalidParam } from '../core/params.js';
import { ROLE_CODES } from '../models/roles.js';
import { accessBot } from '../lib/bots.js';
import { doDeactivateBot, doRegenerateBotApiKey, doUpdateBot } from '../actions/bots-admin.js';

const botId = (raw: string) => Number(raw);

const update = authed(async (req) => {
  const p = req.params;
  const role = p.json('role', (v, n) => {
    if (typeof v !== 'number' || !ROLE_CODES.includes(v)) throw invalidParam('Invalid role', n);
    return v;
  });
  await doUpdateBot(req.app, req.realm, req.user, botId(req.pathParams.bot_id), {
    fullName: p.str('full_name'),
    ownerId: p.int('bot_owner_id'),
    defaultSendingStream: p.str('default_sending_stream'),
    defaultEventsRegisterStream: p.str('default_events_register_stream'),
    defaultAllPublicStreams: p.optBool('default_all_public_streams'),
    role,
  });
  return {};
});

const deactivate = authed(async (req) => {
  await doDeactivateBot(req.app, req.realm, req.user, botId(req.pathParams.bot_id));
  return {};
});

const apiKey = authed(async (req) => {
  const bot = await req.app.store.read((tx) => accessBot(tx, req.realm, req.user, botId(req.pathParams.bot_id)));
  return { api_key: bot.api_key };
});

const regenerate = authed(async (req) => ({ api_key: await doRegenerateBotApiKey(req.app, req.realm, req.user, botId(req.pathParams.bot_id)) }));

export const routes: RouteList = [
  ['bots/{bot_id:int}', { PATCH: update, DELETE: deactivate }],
  ['bots/{bot_id:int}/api_key', { GET: apiKey }],
  ['bots/{bot_id:int}/api_key/regenerate', { POST: regenerate }],
];
