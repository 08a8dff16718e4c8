// Resolves the `principals` parameter (user IDs or API emails) to active users of the realm.
import type { Tx } from '../../store/store.js';
import type { User } from '../../store/schema.js';
import { badRequest } from '../../core/api-error.js';
import { userByEmail, userById } from '../users.js';

/** Deactivated and unknown principals are both "No such user" (HTTP 400 since FL 208). */
export async function resolvePrincipals(tx: Tx, realmId: number, principals: number[] | string[]): Promise<User[]> {
  const out = new Map<number, User>();
  for (const p of principals) {
    const u = typeof p === 'number' ? await userById(tx, realmId, p) : await userByEmail(tx, realmId, p);
    if (!u || !u.is_active) throw badRequest('No such user');
    out.set(u.id, u);
  }
  return [...out.values()];
}
