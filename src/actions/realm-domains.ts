// Allowed email domains: add, change, remove (organization owners), with realm_domains events to everyone.
import type { AppContext } from '../context.js';
import type { Realm, User } from '../store/schema.js';
import { badRequest } from '../core/api-error.js';
import { Role } from '../models/roles.js';
import { activeUserIds } from '../lib/users.js';
import { checkDomain, noSuchDomain } from '../lib/realm-domains.js';
import { writeWithEvents, to } from '../events/publish.js';

function requireOwner(user: User): void {
  if (user.role !== Role.OWNER) throw badRequest('Must be an organization owner');
}

export async function doAddRealmDomain(app: AppContext, realm: Realm, actor: User, rawDomain: string, allowSubdomains: boolean): Promise<[number, string]> {
  requireOwner(actor);
  const domain = checkDomain(rawDomain);
  const { result } = await writeWithEvents(app, realm.id, async (tx) => {
    const existing = await tx.selectFrom('realm_domains').select('id').where('realm_id', '=', realm.id).where('domain', '=', domain).executeTakeFirst();
    if (existing) throw badRequest(`The domain ${domain} is already a part of your organization.`);
    const row = await tx.insertInto('realm_domains').values({ realm_id: realm.id, domain, allow_subdomains: allowSubdomains ? 1 : 0 }).returning('id').executeTakeFirstOrThrow();
    return { id: row.id, users: await activeUserIds(tx, realm.id) };
  }, (result) => [to(result.users, { type: 'realm_domains', op: 'add', realm_domain: { domain, allow_subdomains: allowSubdomains } })]);
  return [result.id, domain];
}

export async function doChangeRealmDomain(app: AppContext, realm: Realm, actor: User, rawDomain: string, allowSubdomains: boolean): Promise<void> {
  requireOwner(actor);
  const domain = rawDomain.trim().toLowerCase();
  await writeWithEvents(app, realm.id, async (tx) => {
    const existing = await tx.selectFrom('realm_domains').select(['id', 'allow_subdomains']).where('realm_id', '=', realm.id).where('domain', '=', domain).executeTakeFirst();
    if (!existing) throw noSuchDomain(domain);
    if ((existing.allow_subdomains === 1) === allowSubdomains) return [];
    await tx.updateTable('realm_domains').set({ allow_subdomains: allowSubdomains ? 1 : 0 }).where('id', '=', existing.id).execute();
    return await activeUserIds(tx, realm.id);
  }, (result) => [to(result, { type: 'realm_domains', op: 'change', realm_domain: { domain, allow_subdomains: allowSubdomains } })]);
}

export async function doRemoveRealmDomain(app: AppContext, realm: Realm, actor: User, rawDomain: string): Promise<void> {
  requireOwner(actor);
  const domain = rawDomain.trim().toLowerCase();
  await writeWithEvents(app, realm.id, async (tx) => {
    const removed = await tx.deleteFrom('realm_domains').where('realm_id', '=', realm.id).where('domain', '=', domain).returning('id').execute();
    if (!removed.length) throw noSuchDomain(domain);
    return await activeUserIds(tx, realm.id);
  }, (result) => [to(result, { type: 'realm_domains', op: 'remove', domain })]);
}
