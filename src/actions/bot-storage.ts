// Writes to a bot's key-value storage (PUT and DELETE /bot_storage); nothing else sees it, so no events.
import type { AppContext } from '../context.js';
import type { User } from '../store/schema.js';
import { badRequest } from '../core/api-error.js';
import { BOT_STORAGE_LIMIT, checkIsBot, codePoints, keyDoesNotExist, storedSizes } from '../lib/bot-storage.js';

/** Adds or replaces entries, refusing the whole request when the total would pass the limit. */
export async function doUpdateBotStorage(app: AppContext, bot: User, entries: Record<string, string>): Promise<void> {
  checkIsBot(bot);
  const keys = Object.keys(entries);
  if (!keys.length) return;
  await app.store.write(async (tx) => {
    const { total, byKey } = await storedSizes(tx, bot.id, keys);
    let after = total;
    for (const k of keys) after += codePoints(k) + codePoints(entries[k]) - (byKey.get(k) ?? 0);
    if (after > BOT_STORAGE_LIMIT) {
      throw badRequest(`Request exceeds storage limit by ${after - BOT_STORAGE_LIMIT} characters. The limit is ${BOT_STORAGE_LIMIT} characters.`);
    }
    for (const k of keys) {
      await tx
        .insertInto('bot_storage')
        .values({ bot_id: bot.id, key: k, value: entries[k] })
        .onConflict((oc) => oc.columns(['bot_id', 'key']).doUpdateSet({ value: entries[k] }))
        .execute();
    }
  });
}

/** Removes the given keys (all of them when none are given); a key not stored fails the whole request. */
export async function doRemoveBotStorage(app: AppContext, bot: User, keys: string[] | undefined): Promise<void> {
  checkIsBot(bot);
  await app.store.write(async (tx) => {
    let q = tx.deleteFrom('bot_storage').where('bot_id', '=', bot.id);
    if (keys) {
      const unique = [...new Set(keys)];
      if (!unique.length) return;
      const present = await tx.selectFrom('bot_storage').select('key').where('bot_id', '=', bot.id).where('key', 'in', unique).execute();
      if (present.length < unique.length) throw keyDoesNotExist();
      q = q.where('key', 'in', unique);
    }
    await q.execute();
  });
}
