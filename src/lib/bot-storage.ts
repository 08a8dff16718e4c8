// Reads of a bot's key-value storage and its rules: bots only, and a limit on the characters stored.
import type { Tx } from '../store/store.js';
import type { User } from '../store/schema.js';
import { sql } from 'kysely';
import { ApiError, badRequest } from '../core/api-error.js';

/** Characters (keys plus values) one bot may store: the original's default USER_STATE_SIZE_LIMIT. */
export const BOT_STORAGE_LIMIT = 10_000_000;

export const keyDoesNotExist = () => badRequest('Key does not exist.');

/** Bot storage belongs to bots; people are refused as the original refuses them (feature level 494). */
export function checkIsBot(user: Pick<User, 'is_bot'>): void {
  if (!user.is_bot) throw new ApiError('Must be a bot user', 'PERMISSION_DENIED', 400);
}

/** Length in Unicode code points, as the original (Python) and SQL LENGTH count characters. */
export function codePoints(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) n--;
  }
  return n;
}

/** The bot's stored entries: all of them, or exactly `keys` (any missing key fails the whole read). */
export async function readBotStorage(tx: Tx, botId: number, keys?: string[]): Promise<Record<string, string>> {
  let q = tx.selectFrom('bot_storage').select(['key', 'value']).where('bot_id', '=', botId);
  if (keys) q = q.where('key', 'in', keys.length ? keys : ['']);
  const rows = await q.orderBy('key').execute();
  const found = new Map(rows.map((r) => [r.key, r.value]));
  const out: Record<string, string> = {};
  if (!keys) {
    for (const r of rows) out[r.key] = r.value;
    return out;
  }
  for (const k of keys) {
    const v = found.get(k);
    if (v === undefined) throw keyDoesNotExist();
    out[k] = v;
  }
  return out;
}

/** Characters the bot stores now, in total and per key among `keys`. */
export async function storedSizes(tx: Tx, botId: number, keys: string[]): Promise<{ total: number; byKey: Map<string, number> }> {
  const sum = await tx
    .selectFrom('bot_storage')
    .select(sql<number | string | null>`SUM(LENGTH(key) + LENGTH(value))`.as('size'))
    .where('bot_id', '=', botId)
    .executeTakeFirst();
  const byKey = new Map<string, number>();
  if (keys.length) {
    const rows = await tx.selectFrom('bot_storage').select(['key', 'value']).where('bot_id', '=', botId).where('key', 'in', keys).execute();
    for (const r of rows) byKey.set(r.key, codePoints(r.key) + codePoints(r.value));
  }
  return { total: Number(sum?.size ?? 0), byKey };
}
