// Muted users: a user's list as register and events carry it, and who muted a sender (the send path).
import type { AppContext } from '../context.js';
import type { Tx } from '../store/store.js';
import { RealmCache } from './realm-cache.js';

export interface MutedUserDict {
  id: number;
  timestamp: number;
}

/** The users `userId` muted, by muted user ID. */
export async function mutedUsersOf(tx: Tx, userId: number): Promise<MutedUserDict[]> {
  const rows = await tx.selectFrom('muted_users').select(['muted_user_id', 'date_muted']).where('user_id', '=', userId).orderBy('muted_user_id').execute();
  return rows.map((r) => ({ id: r.muted_user_id, timestamp: r.date_muted }));
}

// ---- who muted whom, per realm, for the send path ----

/** Muted user ID → the users who muted them, for one realm. */
export type RealmMuters = ReadonlyMap<number, readonly number[]>;

const muters = new RealmCache<RealmMuters>('muted_users_changed', async (app, realmId) => {
  const rows = await app.store.db.selectFrom('muted_users').select(['user_id', 'muted_user_id']).where('realm_id', '=', realmId).execute();
  const map = new Map<number, number[]>();
  for (const r of rows) {
    const list = map.get(r.muted_user_id) ?? [];
    list.push(r.user_id);
    map.set(r.muted_user_id, list);
  }
  return map;
});

/** The users who muted `senderId`: a query on the realm's first send, then from memory until a mute changes. */
export async function mutersOf(app: AppContext, realmId: number, senderId: number): Promise<readonly number[]> {
  return (await muters.get(app, realmId)).get(senderId) ?? NONE;
}

const NONE: readonly number[] = Object.freeze([]);

/** Call after committing a mute or unmute: every node (this one at once) reloads the realm's muters. */
export function mutedUsersChanged(app: AppContext, realmId: number): void {
  muters.changed(app, realmId);
}
