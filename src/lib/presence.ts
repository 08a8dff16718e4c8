// Presence: the modern (by user ID) and legacy (by email, per client) forms, and the reads behind them.
import type { Tx } from '../store/store.js';

/** A client reports every minute; a user silent for longer than this is offline. */
export const OFFLINE_THRESHOLD_SECS = 140;

export interface PresenceRow {
  user_id: number;
  email: string;
  last_connected_time: number;
  last_active_time: number | null;
  last_update_id: number;
}

export function modernPresence(r: Pick<PresenceRow, 'last_connected_time' | 'last_active_time'>): Record<string, number> {
  // A user who never reported "active" has no active_timestamp (the field is optional).
  return r.last_active_time === null ? { idle_timestamp: r.last_connected_time } : { active_timestamp: r.last_active_time, idle_timestamp: r.last_connected_time };
}

/** The one client Parley reports ("website", as the original does since it stopped storing clients). */
export function legacyClient(r: Pick<PresenceRow, 'last_connected_time' | 'last_active_time'>): { client: string; status: string; timestamp: number; pushable: boolean } {
  const active = r.last_active_time !== null && r.last_active_time + OFFLINE_THRESHOLD_SECS >= r.last_connected_time;
  return { client: 'website', status: active ? 'active' : 'idle', timestamp: active ? r.last_active_time! : r.last_connected_time, pushable: false };
}

export function legacyPresence(r: Pick<PresenceRow, 'last_connected_time' | 'last_active_time'>): Record<string, unknown> {
  const website = legacyClient(r);
  return { website, aggregated: { client: website.client, status: website.status, timestamp: website.timestamp } };
}

/** Active people's presence rows, either changed after `afterUpdateId` or reported since `since`. */
/** The largest timestamp an integer column holds (2038). */
const MAX_TIMESTAMP = 2147483647;

export async function presenceRows(tx: Tx, realmId: number, filter: { since: number } | { afterUpdateId: number }): Promise<PresenceRow[]> {
  let q = tx
    .selectFrom('user_presence as p')
    .innerJoin('users as u', 'u.id', 'p.user_id')
    .select(['p.user_id', 'u.email', 'p.last_connected_time', 'p.last_active_time', 'p.last_update_id'])
    .where('p.realm_id', '=', realmId)
    .where('u.is_active', '=', 1)
    .where('u.is_bot', '=', 0);
  // A history of billions of days reaches before 1970 (a timestamp PostgreSQL's integer column cannot compare with): from the start.
  q = 'since' in filter ? q.where('p.last_connected_time', '>=', Math.min(Math.max(filter.since, 0), MAX_TIMESTAMP)) : q.where('p.last_update_id', '>', filter.afterUpdateId);
  return q.orderBy('p.user_id').execute();
}

/** The presences object in the modern or legacy form, and the last update ID it covers (-1 for none). */
export function presenceDict(rows: PresenceRow[], modern: boolean, floorUpdateId = -1): { presences: Record<string, unknown>; presence_last_update_id: number } {
  const presences: Record<string, unknown> = {};
  let last = floorUpdateId;
  for (const r of rows) {
    presences[modern ? String(r.user_id) : r.email] = modern ? modernPresence(r) : legacyPresence(r);
    last = Math.max(last, r.last_update_id);
  }
  return { presences, presence_last_update_id: last };
}

/**
 * One user's presence for GET /users/{user_id_or_email}/presence: both forms (the legacy ones
 * carry only status and timestamp; aggregated says offline past the threshold); null when none.
 */
export async function onePresence(tx: Tx, userId: number, now: number): Promise<Record<string, unknown> | null> {
  const r = await tx.selectFrom('user_presence').select(['last_connected_time', 'last_active_time']).where('user_id', '=', userId).executeTakeFirst();
  if (!r) return null;
  const { status, timestamp } = legacyClient(r);
  const offline = Math.max(r.last_connected_time, r.last_active_time ?? 0) + OFFLINE_THRESHOLD_SECS < now;
  return { ...modernPresence(r), website: { status, timestamp }, aggregated: { status: offline ? 'offline' : status, timestamp } };
}
