// Drafts synced between a user's clients: create, edit and delete, each with a drafts event to the user.
import type { AppContext } from '../context.js';
import type { Realm, User } from '../store/schema.js';
import type { Tx } from '../store/store.js';
import { checkDraftAddress, checkDraftsEnabled, draftDict, draftDoesNotExist, type DraftInput, type DraftRow } from '../lib/personal/drafts.js';
import { writeWithEvents, to } from '../events/publish.js';

function values(d: DraftInput, now: number) {
  return { type: d.type, to_ids: JSON.stringify(d.to), topic: d.topic, content: d.content, last_edit_time: d.timestamp ?? now };
}

/** Stores drafts; returns their IDs in submitted order. */
export async function doCreateDrafts(app: AppContext, realm: Realm, user: User, drafts: DraftInput[]): Promise<number[]> {
  const now = app.clock.now();
  const { result } = await writeWithEvents(app, realm.id, async (tx) => {
    await checkDraftsEnabled(tx, user.id, app.store.dialect);
    const rows: DraftRow[] = [];
    for (const d of drafts) {
      await checkDraftAddress(tx, realm, user, d);
      rows.push(await tx.insertInto('drafts').values({ user_id: user.id, ...values(d, now) }).returningAll().executeTakeFirstOrThrow());
    }
    return rows;
  }, (result) => (result.length ? [to([user.id], { type: 'drafts', op: 'add', drafts: result.map(draftDict) })] : []));
  return result.map((r) => r.id);
}

async function ownDraft(tx: Tx, user: User, id: number): Promise<DraftRow> {
  const row = await tx.selectFrom('drafts').selectAll().where('id', '=', id).where('user_id', '=', user.id).executeTakeFirst();
  if (!row) throw draftDoesNotExist();
  return row;
}

/** Replaces a draft (the timestamp becomes now when the client sends none). */
export async function doEditDraft(app: AppContext, realm: Realm, user: User, id: number, d: DraftInput): Promise<void> {
  const now = app.clock.now();
  await writeWithEvents(app, realm.id, async (tx) => {
    await checkDraftsEnabled(tx, user.id, app.store.dialect);
    await ownDraft(tx, user, id);
    await checkDraftAddress(tx, realm, user, d);
    // A DELETE committed since ownDraft read the row (PostgreSQL reads committed rows) leaves nothing to update.
    const row = await tx.updateTable('drafts').set(values(d, now)).where('id', '=', id).where('user_id', '=', user.id).returningAll().executeTakeFirst();
    if (!row) throw draftDoesNotExist();
    return row;
  }, (result) => [to([user.id], { type: 'drafts', op: 'update', draft: draftDict(result) })]);
}

export async function doDeleteDraft(app: AppContext, realm: Realm, user: User, id: number): Promise<void> {
  await writeWithEvents(app, realm.id, async (tx) => {
    await checkDraftsEnabled(tx, user.id, app.store.dialect);
    await ownDraft(tx, user, id);
    await tx.deleteFrom('drafts').where('id', '=', id).execute();
  }, () => [to([user.id], { type: 'drafts', op: 'remove', draft_id: id })]);
}
