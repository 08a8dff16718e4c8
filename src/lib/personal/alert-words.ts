// Alert words: validation, a per-realm cache that sending consults, and matching message content.
import type { AppContext } from '../../context.js';
import type { Tx } from '../../store/store.js';
import { RealmCache } from '../realm-cache.js';
import { invalidParam } from '../../core/params.js';

export const MAX_ALERT_WORD_LENGTH = 100;
/** Per user: every send checks the recipients' words, so their number stays bounded. */
export const MAX_ALERT_WORDS = 1000;

/** The alert_words parameter: strings of at most 100 characters, trimmed, blanks dropped, one per case-insensitive spelling. */
export function vAlertWords(value: unknown, name: string): string[] {
  if (!Array.isArray(value)) throw invalidParam(`${name} is not a list`, name);
  const out = new Map<string, string>();
  value.forEach((w, i) => {
    if (typeof w !== 'string') throw invalidParam(`${name}[${i}] is not a string`, name);
    if ([...w].length > MAX_ALERT_WORD_LENGTH) throw invalidParam(`${name}[${i}] is too long (limit: ${MAX_ALERT_WORD_LENGTH} characters)`, name);
    if (w.includes('\0')) throw invalidParam(`${name}[${i}] must not contain null bytes`, name);
    const t = w.trim();
    if (t && !out.has(t.toLowerCase())) out.set(t.toLowerCase(), t);
  });
  return [...out.values()];
}

/** A user's alert words in the order they were added. */
export async function userAlertWords(tx: Tx, userId: number): Promise<string[]> {
  return (await tx.selectFrom('alert_words').select('word').where('user_id', '=', userId).orderBy('id').execute()).map((r) => r.word);
}

// ---- matching, as the original does: case-insensitive, at word boundaries ----

const BEFORE = new Set(['(', '"', '.', ',', "'", ';', '[', '*', '`', '>']);
const AFTER = new Set([')', '"', '?', ':', '.', ',', "'", ';', ']', '!', '*', '`']);
const SPACE = /\s/;

/** Whether lower-cased content holds the lower-cased word with a boundary on each side. */
export function containsAlertWord(content: string, word: string): boolean {
  for (let i = content.indexOf(word); i >= 0; i = content.indexOf(word, i + 1)) {
    const before = i === 0 ? '' : content[i - 1];
    const end = i + word.length;
    const after = end >= content.length ? '' : content[end];
    if ((before === '' || SPACE.test(before) || BEFORE.has(before)) && (after === '' || SPACE.test(after) || AFTER.has(after))) return true;
  }
  return false;
}

/** Recipients (never the sender) whose alert words the content contains. */
export function alertedUserIds(words: RealmAlertWords, recipients: Iterable<number>, senderId: number, content: string): number[] {
  if (!words.size) return [];
  const lower = content.toLowerCase();
  const out: number[] = [];
  for (const id of recipients) {
    const list = words.get(id);
    if (list && id !== senderId && list.some((w) => containsAlertWord(lower, w))) out.push(id);
  }
  return out;
}

// ---- the per-realm cache ----

/** User ID → lower-cased alert words, for the users of one realm who have any. */
export type RealmAlertWords = ReadonlyMap<number, readonly string[]>;

const cache = new RealmCache<RealmAlertWords>('alert_words_changed', async (app, realmId) => {
  const rows = await app.store.db.selectFrom('alert_words').select(['user_id', 'word_key']).where('realm_id', '=', realmId).execute();
  const map = new Map<number, string[]>();
  for (const r of rows) {
    const list = map.get(r.user_id) ?? [];
    list.push(r.word_key);
    map.set(r.user_id, list);
  }
  return map;
});

/** The realm's alert words: a query on first use, then from memory until someone's words change. */
export function realmAlertWords(app: AppContext, realmId: number): Promise<RealmAlertWords> {
  return cache.get(app, realmId);
}

/** Call after committing a change of alert words: every node (this one at once) reloads the realm's. */
export function alertWordsChanged(app: AppContext, realmId: number): void {
  cache.changed(app, realmId);
}
