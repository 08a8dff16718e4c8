// Presence: POST /users/me/presence (report and poll) and GET /realm/presence (legacy form).
import type { RouteList } from '../http/router.js';
import { endpoint } from '../http/endpoint.js';
import { Type, bool, int, str } from '../core/param-types.js';
import { badRequest } from '../core/api-error.js';
import { doUpdatePresence, type PresenceStatus } from '../actions/presence.js';
import { presenceDict, presenceRows } from '../lib/presence.js';

export const DEFAULT_PRESENCE_HISTORY_DAYS = 14;

const Presences = Type.Record(Type.String(), Type.Unknown());

const update = endpoint({
  summary: 'Update your presence',
  params: {
    status: str({ required: true }),
    last_update_id: int(),
    history_limit_days: int({ min: 0, invalid: 'Invalid history_limit_days' }),
    ping_only: bool({ default: false }),
    slim_presence: bool({ default: false }),
    // Accepted for compatibility; Parley keeps no usage statistics.
    new_user_input: bool({ default: false }),
  },
  response: Type.Object({ presences: Type.Optional(Presences), presence_last_update_id: Type.Optional(Type.Integer()), server_timestamp: Type.Optional(Type.Number()) }),
  run: async (req, a) => {
    if (a.status !== 'active' && a.status !== 'idle') throw badRequest(`Invalid status: ${a.status}`);
    const lastUpdateId = a.last_update_id;
    await doUpdatePresence(req.app, req.realm, req.user, a.status as PresenceStatus);
    if (a.ping_only) return {};
    const now = req.app.clock.now();
    // A positive last_update_id means the client has data: only newer changes, whatever their age.
    const filter = lastUpdateId !== undefined && lastUpdateId > 0 ? { afterUpdateId: lastUpdateId } : { since: now - (a.history_limit_days ?? DEFAULT_PRESENCE_HISTORY_DAYS) * 86400 };
    const rows = await req.app.store.read((tx) => presenceRows(tx, req.realm.id, filter));
    const dict = presenceDict(rows, lastUpdateId !== undefined || a.slim_presence, lastUpdateId !== undefined && lastUpdateId > 0 ? lastUpdateId : -1);
    return { ...dict, server_timestamp: now };
  },
});

const realmPresence = endpoint({
  summary: 'Get presence of all users',
  response: Type.Object({ presences: Presences, server_timestamp: Type.Number() }),
  run: async (req) => {
    const now = req.app.clock.now();
    const rows = await req.app.store.read((tx) => presenceRows(tx, req.realm.id, { since: now - DEFAULT_PRESENCE_HISTORY_DAYS * 86400 }));
    return { presences: presenceDict(rows, false).presences, server_timestamp: now };
  },
});

export const routes: RouteList = [
  ['users/me/presence', { POST: update }],
  ['realm/presence', { GET: realmPresence }],
];
