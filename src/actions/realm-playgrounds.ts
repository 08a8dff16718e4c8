// Code playgrounds: add and remove (organization administrators), with realm_playgrounds events to everyone.
import type { AppContext } from '../context.js';
import type { Realm, User } from '../store/schema.js';
import type { Tx } from '../store/store.js';
import { badRequest } from '../core/api-error.js';
import { Role } from '../models/roles.js';
import { activeUserIds } from '../lib/users.js';
import { checkPlayground, realmPlaygroundList } from '../lib/realm-playgrounds.js';
import { writeWithEvents, to, type Outgoing } from '../events/publish.js';

function requireAdmin(user: User): void {
  if (user.role > Role.ADMINISTRATOR) throw badRequest('Must be an organization administrator');
}

async function listEvent(tx: Tx, realmId: number): Promise<Outgoing> {
  return to(await activeUserIds(tx, realmId), { type: 'realm_playgrounds', realm_playgrounds: await realmPlaygroundList(tx, realmId) });
}

export async function doAddRealmPlayground(app: AppContext, realm: Realm, actor: User, input: { name: string; pygmentsLanguage: string; urlTemplate: string }): Promise<number> {
  requireAdmin(actor);
  const p = checkPlayground(input);
  const { result } = await writeWithEvents(app, realm.id, async (tx) => {
    const same = await tx.selectFrom('realm_playgrounds').select('id').where('realm_id', '=', realm.id).where('pygments_language', '=', p.pygmentsLanguage).where('name', '=', p.name).executeTakeFirst();
    if (same) throw badRequest('Realm playground with this Realm, Pygments language and Name already exists.');
    const row = await tx.insertInto('realm_playgrounds').values({ realm_id: realm.id, name: p.name, pygments_language: p.pygmentsLanguage, url_template: p.urlTemplate }).returning('id').executeTakeFirstOrThrow();
    return { id: row.id, event: await listEvent(tx, realm.id) };
  }, (result) => [result.event]);
  return result.id;
}

export async function doRemoveRealmPlayground(app: AppContext, realm: Realm, actor: User, id: number): Promise<void> {
  requireAdmin(actor);
  await writeWithEvents(app, realm.id, async (tx) => {
    const removed = await tx.deleteFrom('realm_playgrounds').where('realm_id', '=', realm.id).where('id', '=', id).returning('id').execute();
    if (!removed.length) throw badRequest('Invalid playground');
    return listEvent(tx, realm.id);
  }, (result) => [result]);
}
