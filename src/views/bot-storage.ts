// A bot's key-value storage: GET, PUT and DELETE /bot_storage (bots only).
import type { RouteList } from '../http/router.js';
import { endpoint } from '../http/endpoint.js';
import { Type, json } from '../core/param-types.js';
import { invalidParam } from '../core/params.js';
import { checkIsBot, readBotStorage } from '../lib/bot-storage.js';
import { doRemoveBotStorage, doUpdateBotStorage } from '../actions/bot-storage.js';

const KeyList = Type.Array(Type.String());

/** PostgreSQL text holds no NUL byte: refused in keys and values alike, on both databases. */
function noNul<T>(value: T, name: string): T {
  const texts = Array.isArray(value) ? value : value && typeof value === 'object' ? Object.entries(value).flat() : [];
  if (texts.some((t) => typeof t === 'string' && t.includes('\0'))) throw invalidParam(`${name} must not contain null bytes`, name);
  return value;
}

const getStorage = endpoint({
  summary: "Get a bot's stored data",
  params: { keys: json(KeyList, { validate: (v, n) => noNul(v as string[], n) }) },
  response: Type.Object({ storage: Type.Record(Type.String(), Type.String()) }),
  run: async (req, a) => {
    checkIsBot(req.user);
    return { storage: await req.app.store.read((tx) => readBotStorage(tx, req.user.id, a.keys)) };
  },
});

const updateStorage = endpoint({
  summary: "Update a bot's stored data",
  params: { storage: json(Type.Record(Type.String(), Type.String()), { required: true, validate: (v, n) => noNul(v as Record<string, string>, n) }) },
  response: Type.Object({}),
  run: async (req, a) => {
    await doUpdateBotStorage(req.app, req.user, a.storage);
    return {};
  },
});

const removeStorage = endpoint({
  summary: "Remove a bot's stored data",
  params: { keys: json(KeyList, { validate: (v, n) => noNul(v as string[], n) }) },
  response: Type.Object({}),
  run: async (req, a) => {
    await doRemoveBotStorage(req.app, req.user, a.keys);
    return {};
  },
});

export const routes: RouteList = [['bot_storage', { GET: getStorage, PUT: updateStorage, DELETE: removeStorage }]];
