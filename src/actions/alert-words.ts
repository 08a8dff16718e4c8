// Alert words: adding and removing a user's words, with the alert_words event and the cache reload.
import type { AppContext } from '../context.js';
import type { Realm, User } from '../store/schema.js';
import type { Tx } from '../store/store.js';
import { badRequest } from '../core/api-error.js';
import { alertWordsChanged, MAX_ALERT_WORDS, userAlertWords } from '../lib/personal/alert-words.js';
import { logInTransaction, publishLogged, to } from '../events/publish.js';

/** Adds words the user does not have yet (case-insensitively); returns the user's words. */
export async function doAddAlertWords(app: AppContext, realm: Realm, user: User, words: string[]): Promise<string[]> {
  return change(app, realm, user, async (tx, current) => {
    const have = new Set(current.map((w) => w.toLowerCase()));
    const fresh = words.filter((w) => !have.has(w.toLowerCase()));
    if (!fresh.length) return false;
    if (current.length + fresh.length > MAX_ALERT_WORDS) throw badRequest(`Too many alert words (limit: ${MAX_ALERT_WORDS})`);
    await tx
      .insertInto('alert_words')
      .values(fresh.map((word) => ({ realm_id: realm.id, user_id: user.id, word, word_key: word.toLowerCase() })))
      // A concurrent request adding the same word already did the work.
      .onConflict((oc) => oc.columns(['user_id', 'word_key']).doNothing())
      .execute();
    return true;
  });
}

/** Removes words (case-insensitively; unknown ones are ignored); returns the user's words. */
export async function doRemoveAlertWords(app: AppContext, realm: Realm, user: User, words: string[]): Promise<string[]> {
  return change(app, realm, user, async (tx, current) => {
    const keys = new Set(words.map((w) => w.toLowerCase()));
    if (!current.some((w) => keys.has(w.toLowerCase()))) return false;
    await tx.deleteFrom('alert_words').where('user_id', '=', user.id).where('word_key', 'in', [...keys]).execute();
    return true;
  });
}

/** Runs one change; when it changed something, announces the new list and drops the realm's cached words. */
async function change(app: AppContext, realm: Realm, user: User, fn: (tx: Tx, current: string[]) => Promise<boolean>): Promise<string[]> {
  const { result, stamp } = await app.store.write(async (tx) => {
    const current = await userAlertWords(tx, user.id);
    const changed = await fn(tx, current);
    const words = changed ? await userAlertWords(tx, user.id) : current;
    // Logged in this transaction, delivered below once the realm's cached words are dropped.
    const row = changed ? await logInTransaction(app, tx, realm.id, [to([user.id], { type: 'alert_words', alert_words: words })]) : null;
    return { changed, words, row };
  });
  if (result.changed) {
    alertWordsChanged(app, realm.id);
    publishLogged(app, result.row, stamp);
  }
  return result.words;
}
