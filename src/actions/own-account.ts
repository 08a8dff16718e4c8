// The caller's own account: deactivating it (DELETE /users/me) and a new API key (POST /users/me/api_key/regenerate).
import type { AppContext } from '../context.js';
import type { Realm, User } from '../store/schema.js';
import { ApiError } from '../core/api-error.js';
import { newApiKey } from '../lib/secrets.js';
import { writeWithEvents, type Outgoing } from '../events/publish.js';
import { isOnlyOwner } from './user-admin.js';
import { deactivateOne } from './user-deactivate.js';

/** The original's refusal: the organization's only user, or its only owner, may not leave. */
function cannotDeactivateLast(isLastOwner: boolean): ApiError {
  const entity = isLastOwner ? 'organization owner' : 'user';
  return new ApiError(`Cannot deactivate the only ${entity}`, 'CANNOT_DEACTIVATE_LAST_USER', 400, { entity, is_last_owner: isLastOwner });
}

/** Deactivates the caller and the bots they own (bots first), with the same events an administrator's deactivation sends. */
export async function doDeactivateOwnAccount(app: AppContext, realm: Realm, user: User): Promise<void> {
  const { result } = await writeWithEvents(
    app,
    realm.id,
    async (tx) => {
      const others = await tx.selectFrom('users').select('id').where('realm_id', '=', realm.id).where('is_active', '=', 1).where('is_bot', '=', 0).where('id', '!=', user.id).executeTakeFirst();
      if (!others && !user.is_bot) throw cannotDeactivateLast(false);
      if (await isOnlyOwner(tx, user)) throw cannotDeactivateLast(true);
      const bots = await tx.selectFrom('users').selectAll().where('realm_id', '=', realm.id).where('bot_owner_id', '=', user.id).where('is_bot', '=', 1).where('is_active', '=', 1).orderBy('id').execute();
      const events: Outgoing[] = [];
      for (const u of [...bots, user]) events.push(...(await deactivateOne(tx, app.store.dialect, realm, u, {})));
      return { ids: [...bots.map((b) => b.id), user.id], events };
    },
    (r) => r.events,
  );
  for (const id of result.ids) {
    app.caches.userChanged(id);
    app.bus.publishControl({ type: 'user_deactivated', userId: id });
  }
}

/** A new API key; the old one stops working at once on every node. */
export async function doRegenerateOwnApiKey(app: AppContext, user: User): Promise<string> {
  const key = newApiKey();
  await app.store.write((tx) => tx.updateTable('users').set({ api_key: key }).where('id', '=', user.id).execute());
  app.caches.userChanged(user.id);
  return key;
}
