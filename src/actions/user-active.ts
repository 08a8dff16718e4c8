// Turns an account on or off: users.is_active and its copy on every subscription, in the caller's transaction.
import type { Transaction } from 'kysely';
import type { DB, User } from '../store/schema.js';

/**
 * The only way an account's active state changes. Subscriptions keep a copy (user_active) so a
 * send reads its recipients from the subscriptions index alone; the two change in one
 * transaction, so no send ever sees them differ.
 */
export async function setUserActive(tx: Transaction<DB>, userId: number, active: boolean, more: Partial<User> = {}): Promise<void> {
  const flag = active ? 1 : 0;
  await tx.updateTable('users').set({ ...more, is_active: flag }).where('id', '=', userId).execute();
  await tx.updateTable('subscriptions').set({ user_active: flag }).where('user_id', '=', userId).execute();
}
