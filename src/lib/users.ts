// Reads about users: lookups by id or email within a realm, and who may see whom.
import type { Tx } from '../store/store.js';
import type { Realm, User } from '../store/schema.js';
import { isUserInGroup } from './groups.js';
import { realmSettings } from './realm-settings.js';
import { Role } from '../models/roles.js';
import { ApiError } from '../core/api-error.js';

export async function userById(tx: Tx, realmId: number, id: number): Promise<User | undefined> {
  return tx.selectFrom('users').selectAll().where('id', '=', id).where('realm_id', '=', realmId).executeTakeFirst();
}

export async function userByEmail(tx: Tx, realmId: number, email: string): Promise<User | undefined> {
  const key = email.trim().toLowerCase();
  return tx
    .selectFrom('users')
    .selectAll()
    .where('realm_id', '=', realmId)
    .where((eb) => eb.or([eb('email_key', '=', key), eb('email', '=', email.trim())]))
    .executeTakeFirst();
}

/** Looks a user up by ID and fails with the original's message when absent from the realm. */
export async function accessUserById(tx: Tx, realmId: number, id: number, opts: { allowDeactivated?: boolean; allowBots?: boolean } = {}): Promise<User> {
  const u = await userById(tx, realmId, id);
  if (!u) throw new ApiError('No such user', 'BAD_REQUEST', 400);
  if (!u.is_active && !opts.allowDeactivated) throw new ApiError('User is deactivated', 'BAD_REQUEST', 400);
  if (u.is_bot && opts.allowBots === false) throw new ApiError('No such user', 'BAD_REQUEST', 400);
  return u;
}

/** IDs of every active user of the realm (the audience of realm-wide events). */
export async function activeUserIds(tx: Tx, realmId: number): Promise<number[]> {
  const rows = await tx.selectFrom('users').select('id').where('realm_id', '=', realmId).where('is_active', '=', 1).execute();
  return rows.map((r) => r.id);
}

/** The user's email_address_visibility (1 everyone … 5 moderators); bots' addresses are always public. */
export function emailVisibility(target: Pick<User, 'settings'> & { is_bot?: number }): number {
  if (target.is_bot) return 1;
  const text = target.settings || '{}';
  // Register asks for every user of the organization, and most share a few settings texts.
  let v = visibilityBySettings.get(text);
  if (v === undefined) {
    v = (JSON.parse(text) as { email_address_visibility?: number }).email_address_visibility ?? 1;
    if (visibilityBySettings.size >= 1000) visibilityBySettings.clear();
    visibilityBySettings.set(text, v);
  }
  return v;
}

const visibilityBySettings = new Map<string, number>();

/** The organization's host name (`acme.example.com`), the domain of bot and dummy addresses. */
export function realmHostName(externalUrl: string, realm: Pick<Realm, 'string_id'>): string {
  const root = new URL(externalUrl).hostname;
  return realm.string_id ? `${realm.string_id}.${root}` : root;
}

/**
 * The API email (stored in users.email): the real address when everyone may see it, otherwise the
 * dummy `user{id}@{host}`, so one value serves every viewer (messages, typing, mentions) and none
 * learns a hidden address from it; delivery_email then carries the real one to those allowed.
 */
export function apiEmailFor(u: Pick<User, 'id' | 'delivery_email' | 'settings'> & { is_bot?: number }, host: string): string {
  return emailVisibility(u) === 1 ? u.delivery_email : `user${u.id}@${host}`;
}

/** Whether a viewer may see another user's real email (self and administrators always may). */
export function canSeeDeliveryEmail(viewer: Pick<User, 'id' | 'role'> | null, target: Pick<User, 'id' | 'settings'> & { is_bot?: number }): boolean {
  if (!viewer) return false;
  if (viewer.id === target.id || viewer.role <= Role.ADMINISTRATOR) return true;
  const visibility = emailVisibility(target);
  // 1 everyone, 2 members, 3 administrators (allowed above), 4 nobody, 5 moderators.
  switch (visibility) {
    case 1:
      return true;
    case 2:
      return viewer.role <= Role.MEMBER;
    case 5:
      return viewer.role <= Role.MODERATOR;
    default:
      return false;
  }
}

/**
 * Users the viewer may access: everyone when they belong to the organization's
 * can_access_all_users_group; otherwise themselves, bots, and people sharing a channel with them.
 */
export async function accessibleUserIds(tx: Tx, realm: Realm, viewer: User): Promise<Set<number> | null> {
  const group = realmSettings(realm).can_access_all_users_group;
  if (typeof group !== 'number' || (await isUserInGroup(tx, viewer, group))) return null;
  const ids = new Set<number>([viewer.id]);
  const bots = await tx.selectFrom('users').select('id').where('realm_id', '=', realm.id).where('is_bot', '=', 1).execute();
  for (const b of bots) ids.add(b.id);
  const peers = await tx
    .selectFrom('subscriptions as mine')
    .innerJoin('subscriptions as theirs', 'theirs.stream_id', 'mine.stream_id')
    .select('theirs.user_id')
    .distinct()
    .where('mine.user_id', '=', viewer.id)
    .where('mine.active', '=', 1)
    .where('theirs.active', '=', 1)
    .execute();
  for (const p of peers) ids.add(p.user_id);
  return ids;
}

/**
 * The user an email names, as a viewer may use it: a dummy address (user<ID>@<host>) names a user
 * by ID whatever their email visibility; a real address finds only a user whose address the viewer
 * may see.
 */
export async function userByEmailFor(tx: Tx, viewer: User, email: string): Promise<User | undefined> {
  const dummy = /^user(\d+)@/i.exec(email);
  if (dummy) {
    const u = await userById(tx, viewer.realm_id, Number(dummy[1]));
    if (u) return u;
  }
  const u = await userByEmail(tx, viewer.realm_id, email);
  if (u && u.email.toLowerCase() !== email.trim().toLowerCase() && !canSeeDeliveryEmail(viewer, u)) return undefined;
  return u;
}

/** The organization's users in ID order, or only those with the given IDs. */
export function realmUsers(tx: Tx, realmId: number, ids?: number[]): Promise<User[]> {
  let q = tx.selectFrom('users').selectAll().where('realm_id', '=', realmId).orderBy('id');
  if (ids) q = q.where('id', 'in', ids.length ? ids : [-1]);
  return q.execute();
}
