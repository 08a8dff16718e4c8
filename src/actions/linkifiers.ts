// Linkifier administration (add, update, remove, reorder) and the realm_linkifiers event with the whole list.
import type { AppContext } from '../context.js';
import type { Realm, User } from '../store/schema.js';
import type { Tx } from '../store/store.js';
import { ApiError, badRequest } from '../core/api-error.js';
import { logInTransaction, publishLogged } from '../events/publish.js';
import { activeUserIds } from '../lib/users.js';
import { checkLinkifier, realmLinkifiers, type LinkifierInput } from '../lib/linkifiers.js';
import { Role } from '../models/roles.js';
import { adminRequired } from './settings.js';
import { linkifiersChanged } from '../lib/markdown/render-options.js';

const notFound = () => new ApiError('Linkifier not found.', 'BAD_REQUEST', 400);

async function checkUnique(tx: Tx, realmId: number, pattern: string, exceptId: number | null): Promise<void> {
  let q = tx.selectFrom('realm_linkifiers').select('id').where('realm_id', '=', realmId).where('pattern', '=', pattern);
  if (exceptId !== null) q = q.where('id', '!=', exceptId);
  if (await q.executeTakeFirst()) throw badRequest('A linkifier with this pattern already exists.');
}

/** Commits `fn` (an administrator's change) and sends everyone the new list. */
async function change<T>(app: AppContext, realm: Realm, user: User, fn: (tx: Tx) => Promise<T>): Promise<T> {
  if (user.role > Role.ADMINISTRATOR) throw adminRequired();
  const { result, stamp } = await app.store.write(async (tx) => {
    const r = await fn(tx);
    const users = await activeUserIds(tx, realm.id);
    const list = await realmLinkifiers(tx, realm.id);
    // Clients without linkifier_url_template cannot use templates: they get no event (and an empty list at register).
    return { r, row: await logInTransaction(app, tx, realm.id, [{ users, event: { type: 'realm_linkifiers', realm_linkifiers: list }, requiresCapability: 'linkifier_url_template' }]) };
  });
  // Before the event goes out: a send prompted by the new list must not render with the cached old one.
  linkifiersChanged(app, realm.id);
  publishLogged(app, result.row, stamp);
  return result.r;
}

const columns = (i: LinkifierInput) => ({
  pattern: i.pattern,
  url_template: i.urlTemplate,
  example_input: i.exampleInput,
  reverse_template: i.reverseTemplate,
  alternative_url_templates: JSON.stringify(i.alternativeUrlTemplates),
});

export async function doAddLinkifier(app: AppContext, realm: Realm, user: User, input: LinkifierInput): Promise<number> {
  checkLinkifier(input);
  return change(app, realm, user, async (tx) => {
    await checkUnique(tx, realm.id, input.pattern, null);
    const last = await tx.selectFrom('realm_linkifiers').select((eb) => eb.fn.max('sort_order').as('m')).where('realm_id', '=', realm.id).executeTakeFirst();
    const row = await tx
      .insertInto('realm_linkifiers')
      .values({ realm_id: realm.id, ...columns(input), sort_order: Number(last?.m ?? 0) + 1 })
      .returning('id')
      .executeTakeFirstOrThrow();
    return row.id;
  });
}

export async function doUpdateLinkifier(app: AppContext, realm: Realm, user: User, id: number, input: LinkifierInput): Promise<void> {
  checkLinkifier(input);
  await change(app, realm, user, async (tx) => {
    await checkUnique(tx, realm.id, input.pattern, id);
    const r = await tx.updateTable('realm_linkifiers').set(columns(input)).where('realm_id', '=', realm.id).where('id', '=', id).executeTakeFirst();
    if (Number(r.numUpdatedRows) !== 1) throw notFound();
  });
}

export async function doRemoveLinkifier(app: AppContext, realm: Realm, user: User, id: number): Promise<void> {
  await change(app, realm, user, async (tx) => {
    const r = await tx.deleteFrom('realm_linkifiers').where('realm_id', '=', realm.id).where('id', '=', id).executeTakeFirst();
    if (Number(r.numDeletedRows) !== 1) throw notFound();
  });
}

export async function doReorderLinkifiers(app: AppContext, realm: Realm, user: User, ids: number[]): Promise<void> {
  await change(app, realm, user, async (tx) => {
    const existing = await tx.selectFrom('realm_linkifiers').select('id').where('realm_id', '=', realm.id).execute();
    const known = new Set(existing.map((r) => r.id));
    if (new Set(ids).size !== ids.length || ids.length !== known.size || ids.some((i) => !known.has(i))) {
      throw badRequest('The ordered list must enumerate all existing linkifiers exactly once');
    }
    for (const [i, id] of ids.entries()) await tx.updateTable('realm_linkifiers').set({ sort_order: i + 1 }).where('id', '=', id).execute();
  });
}
