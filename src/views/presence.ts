// Presence: POST /users/me/presence (report and poll) and GET /realm/presence (legacy form).
import type { RouteList } from '../http/router.js';
import { authed } from '../http/handlers.js';
import { badRequest } from '../core/api-error.js';
import { doUpdatePresence, type PresenceStatus } from '../actions/presence.js';
import { presenceDict, presenceRows } from '../lib/presence.js';

export const DEFAULT_PRESENCE_HISTORY_DAYS = 14;

const update = authed(async (req) => {
  const p = req.params;
  const status = p.reqStr('status');
  if (status !== 'active' && status !== 'idle') throw badRequest(`Invalid status: ${status}`);
  const lastUpdateId = p.int('last_update_id');
  const historyDays = p.int('history_limit_days');
  const pingOnly = p.bool('ping_only', false);
  const slim = p.bool('slim_presence', false);
  // Accepted for compatibility; Parley keeps no usage statistics.
  p.bool('new_user_input', false);
  if (historyDays !== undefined && historyDays < 0) throw badRequest('Invalid history_limit_days');
  await doUpdatePresence(req.app, req.realm, req.user, status as PresenceStatus);
  if (pingOnly) return {};
  const now = req.app.clock.now();
  // A positive last_update_id means the client has data: only newer changes, whatever their age.
  const filter = lastUpdateId !== undefined && lastUpdateId > 0 ? { afterUpdateId: lastUpdateId } : { since: now - (historyDays ?? DEFAULT_PRESENCE_HISTORY_DAYS) * 86400 };
  const rows = await req.app.store.read((tx) => presenceRows(tx, req.realm.id, filter));
  const dict = presenceDict(rows, lastUpdateId !== undefined || slim, lastUpdateId !== undefined && lastUpdateId > 0 ? lastUpdateId : -1);
  return { ...dict, server_timestamp: now };
});

const realmPresence = authed(async (req) => {
  const now = req.app.clock.now();
  const rows = await req.app.store.read((tx) => presenceRows(tx, req.realm.id, { since: now - DEFAULT_PRESENCE_HISTORY_DAYS * 86400 }));
  return { presences: presenceDict(rows, false).presences, server_timestamp: now };
});

export const routes: RouteList = [
  ['users/me/presence', { POST: update }],
  ['realm/presence', { GET: realmPresence }],
];
