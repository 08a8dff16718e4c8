// Saved snippets: create, edit and delete, each with a saved_snippets event to the user's clients.
import type { AppContext } from '../context.js';
import type { Realm, User } from '../store/schema.js';
import { snippetDict, snippetDoesNotExist } from '../lib/personal/snippets.js';
import { writeWithEvents, to } from '../events/publish.js';

export async function doCreateSnippet(app: AppContext, realm: Realm, user: User, title: string, content: string): Promise<number> {
  const { result } = await writeWithEvents(
    app,
    realm.id,
    (tx) => tx.insertInto('saved_snippets').values({ user_id: user.id, title, content, date_created: app.clock.now() }).returningAll().executeTakeFirstOrThrow(),
    (result) => [to([user.id], { type: 'saved_snippets', op: 'add', saved_snippet: snippetDict(result) })],
  );
  return result.id;
}

/** Changes the title and/or content; an edit that changes nothing sends no event. */
export async function doEditSnippet(app: AppContext, realm: Realm, user: User, id: number, changes: { title?: string; content?: string }): Promise<void> {
  await writeWithEvents(app, realm.id, async (tx) => {
    const row = await tx.selectFrom('saved_snippets').selectAll().where('id', '=', id).where('user_id', '=', user.id).executeTakeFirst();
    if (!row) throw snippetDoesNotExist();
    const after = { ...row, ...changes };
    if (after.title === row.title && after.content === row.content) return null;
    await tx.updateTable('saved_snippets').set(changes).where('id', '=', id).execute();
    return after;
  }, (result) => (result ? [to([user.id], { type: 'saved_snippets', op: 'update', saved_snippet: snippetDict(result) })] : []));
}

export async function doDeleteSnippet(app: AppContext, realm: Realm, user: User, id: number): Promise<void> {
  await writeWithEvents(app, realm.id, async (tx) => {
    const r = await tx.deleteFrom('saved_snippets').where('id', '=', id).where('user_id', '=', user.id).executeTakeFirst();
    if (!Number(r.numDeletedRows)) throw snippetDoesNotExist();
  }, () => [to([user.id], { type: 'saved_snippets', op: 'remove', saved_snippet_id: id })]);
}
