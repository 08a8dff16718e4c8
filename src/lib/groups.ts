// User groups: system groups, recursive membership, group-setting values, organization permissions held
// through a group, and the rules of named groups (API objects, access, permission checks, setting restrictions).
import { storeOf, whenCommitted, type Store, type Tx } from '../store/store.js';
import type { User } from '../store/schema.js';
import { roleInSystemGroup, SYSTEM_GROUPS, type SystemGroupName } from '../models/system-groups.js';
import { sql } from 'kysely';
import type { Realm, UserGroup } from '../store/schema.js';
import { ApiError, badRequest } from '../core/api-error.js';
import { Role } from '../models/roles.js';
import { realmSettings } from './realm-settings.js';
import { REALM_GROUP_SETTINGS } from '../models/realm-settings.js';

export type GroupSettingValue = number | { direct_members: number[]; direct_subgroups: number[] };

export async function systemGroupIds(tx: Tx, realmId: number): Promise<Record<SystemGroupName, number>> {
  const rows = await tx
    .selectFrom('user_groups')
    .select(['id', 'name'])
    .where('realm_id', '=', realmId)
    .where('is_system_group', '=', 1)
    .execute();
  const out = {} as Record<SystemGroupName, number>;
  for (const r of rows) out[r.name as SystemGroupName] = r.id;
  return out;
}

/** All groups reachable from groupId through subgroups, groupId included. */
export async function expandSubgroups(tx: Tx, groupIds: number[]): Promise<Set<number>> {
  const seen = new Set<number>(groupIds);
  let frontier = [...seen];
  while (frontier.length) {
    const rows = await tx.selectFrom('user_group_subgroups').select('subgroup_id').where('group_id', 'in', frontier).execute();
    frontier = [];
    for (const r of rows) {
      if (!seen.has(r.subgroup_id)) {
        seen.add(r.subgroup_id);
        frontier.push(r.subgroup_id);
      }
    }
  }
  return seen;
}

/**
 * System groups by ID, per database: their rows are never renamed, moved or deleted (system
 * groups cannot be edited), so checking a channel's posting permission on every send needs no query.
 */
const systemGroups = new WeakMap<Store, Map<number, { realmId: number; name: SystemGroupName }>>();
const MAX_SYSTEM_GROUPS = 100_000;

function rememberSystemGroup(store: Store, id: number, realmId: number, name: SystemGroupName): void {
  let byId = systemGroups.get(store);
  if (!byId) systemGroups.set(store, (byId = new Map()));
  if (byId.size >= MAX_SYSTEM_GROUPS) byId.clear();
  byId.set(id, { realmId, name });
}

/** Whether the user belongs to the group, directly or through its subgroups. */
export async function isUserInGroup(tx: Tx, user: Pick<User, 'id' | 'role' | 'realm_id' | 'is_active'>, groupId: number): Promise<boolean> {
  const store = storeOf(tx);
  const known = store && systemGroups.get(store)?.get(groupId);
  if (known) return known.realmId === user.realm_id && user.is_active === 1 && roleInSystemGroup(user.role, known.name);
  const group = await tx.selectFrom('user_groups').select(['name', 'is_system_group', 'realm_id']).where('id', '=', groupId).executeTakeFirst();
  if (!group || group.realm_id !== user.realm_id) return false;
  if (group.is_system_group && group.name && (SYSTEM_GROUPS as readonly string[]).includes(group.name)) {
    // Remembered once committed: a group created by a write that then rolls back could have its ID reused.
    if (store) whenCommitted(tx, () => rememberSystemGroup(store, groupId, group.realm_id, group.name as SystemGroupName));
    return user.is_active === 1 && roleInSystemGroup(user.role, group.name as SystemGroupName);
  }
  const groups = await expandSubgroups(tx, [groupId]);
  const hit = await tx
    .selectFrom('user_group_members')
    .select('user_id')
    .where('group_id', 'in', [...groups])
    .where('user_id', '=', user.id)
    .executeTakeFirst();
  return !!hit;
}

/** IDs of active users in the group, recursively. */
export async function groupMemberIds(tx: Tx, groupId: number): Promise<number[]> {
  const groups = await expandSubgroups(tx, [groupId]);
  const rows = await tx
    .selectFrom('user_group_members')
    .innerJoin('users', 'users.id', 'user_group_members.user_id')
    .select('users.id')
    .distinct()
    .where('user_group_members.group_id', 'in', [...groups])
    .where('users.is_active', '=', 1)
    .execute();
  return rows.map((r) => r.id);
}

/** The API form of a group-setting: a named group's ID, or the anonymous group's members and subgroups. */
export async function groupSettingValue(tx: Tx, groupId: number): Promise<GroupSettingValue> {
  const g = await tx.selectFrom('user_groups').select(['id', 'name']).where('id', '=', groupId).executeTakeFirst();
  if (!g || g.name !== null) return groupId;
  const [members, subgroups] = await Promise.all([
    tx.selectFrom('user_group_members').select('user_id').where('group_id', '=', groupId).orderBy('user_id').execute(),
    tx.selectFrom('user_group_subgroups').select('subgroup_id').where('group_id', '=', groupId).orderBy('subgroup_id').execute(),
  ]);
  return { direct_members: members.map((m) => m.user_id), direct_subgroups: subgroups.map((s) => s.subgroup_id) };
}

/** Group-setting values for many groups at once (for register and channel lists). */
export async function groupSettingValues(tx: Tx, groupIds: number[]): Promise<Map<number, GroupSettingValue>> {
  const out = new Map<number, GroupSettingValue>();
  const ids = [...new Set(groupIds)];
  if (!ids.length) return out;
  const groups = await tx.selectFrom('user_groups').select(['id', 'name']).where('id', 'in', ids).execute();
  const anonymous = groups.filter((g) => g.name === null).map((g) => g.id);
  for (const g of groups) if (g.name !== null) out.set(g.id, g.id);
  if (anonymous.length) {
    const [members, subgroups] = await Promise.all([
      tx.selectFrom('user_group_members').select(['group_id', 'user_id']).where('group_id', 'in', anonymous).orderBy('user_id').execute(),
      tx.selectFrom('user_group_subgroups').select(['group_id', 'subgroup_id']).where('group_id', 'in', anonymous).orderBy('subgroup_id').execute(),
    ]);
    for (const id of anonymous) out.set(id, { direct_members: [], direct_subgroups: [] });
    for (const m of members) (out.get(m.group_id) as { direct_members: number[] }).direct_members.push(m.user_id);
    for (const s of subgroups) (out.get(s.group_id) as { direct_subgroups: number[] }).direct_subgroups.push(s.subgroup_id);
  }
  return out;
}

/** Active users who are members of the group itself, not through a subgroup. */
export async function directMemberIds(tx: Tx, groupId: number): Promise<number[]> {
  const rows = await tx
    .selectFrom('user_group_members')
    .innerJoin('users', 'users.id', 'user_group_members.user_id')
    .select('users.id')
    .where('user_group_members.group_id', '=', groupId)
    .where('users.is_active', '=', 1)
    .execute();
  return rows.map((r) => r.id);
}

/** Whether the user is a member of the group itself (not through a subgroup). */
export async function isDirectMember(tx: Tx, groupId: number, userId: number): Promise<boolean> {
  const hit = await tx.selectFrom('user_group_members').select('user_id').where('group_id', '=', groupId).where('user_id', '=', userId).executeTakeFirst();
  return !!hit;
}

/** The group's own subgroups (one level). */
export async function directSubgroupIds(tx: Tx, groupId: number): Promise<number[]> {
  return (await tx.selectFrom('user_group_subgroups').select('subgroup_id').where('group_id', '=', groupId).execute()).map((r) => r.subgroup_id);
}

/** Whether the user holds an organization permission whose value is a group. */
export async function hasRealmPermission(tx: Tx, user: Pick<User, 'id' | 'role' | 'realm_id' | 'is_active'>, realm: { settings: string }, setting: string): Promise<boolean> {
  const id = realmSettings(realm)[setting];
  return typeof id === 'number' && isUserInGroup(tx, user, id);
}

// ---- named groups: API objects, access, permission checks ----

/** The six permission settings of a user group, in the API objects' key order. */
export const GROUP_PERMISSIONS = [
  'can_add_members_group',
  'can_join_group',
  'can_leave_group',
  'can_manage_group',
  'can_mention_group',
  'can_remove_members_group',
] as const;
export type GroupPermission = (typeof GROUP_PERMISSIONS)[number];

/** Defaults for a new group; "creator" is an anonymous group holding only the creating user. */
export const GROUP_PERMISSION_DEFAULTS: Record<GroupPermission, string> = {
  can_add_members_group: 'creator',
  can_join_group: 'role:nobody',
  can_leave_group: 'role:everyone',
  can_manage_group: 'creator',
  can_mention_group: 'role:everyone',
  can_remove_members_group: 'role:nobody',
};

/** System groups a setting may not be set to (the spec's restrictions; role:internet never applies to groups). */
export const GROUP_PERMISSION_FORBIDDEN: Record<GroupPermission, readonly string[]> = {
  can_add_members_group: ['role:internet'],
  can_join_group: ['role:internet'],
  can_leave_group: ['role:internet'],
  can_manage_group: ['role:internet', 'role:everyone'],
  can_mention_group: ['role:internet', 'role:owners'],
  can_remove_members_group: ['role:internet'],
};

export const MAX_GROUP_NAME_LENGTH = 100;
export const MAX_GROUP_DESCRIPTION_LENGTH = 1024;
const RESERVED_PREFIXES = ['@', 'role:', 'user:', 'stream:', 'channel:'];

export const invalidGroup = () => badRequest('Invalid user group');
export const insufficient = () => badRequest('Insufficient permission');

export function parsePermissions(g: Pick<UserGroup, 'permissions'>): Partial<Record<GroupPermission, number>> {
  return JSON.parse(g.permissions || '{}') as Partial<Record<GroupPermission, number>>;
}

/** Groups' API objects (register, GET /user_groups, user_group add events), ordered by ID. */
export async function presentUserGroups(tx: Tx, realmId: number, opts: { includeDeactivated: boolean; ids?: number[] }): Promise<Record<string, unknown>[]> {
  let q = tx.selectFrom('user_groups').selectAll().where('realm_id', '=', realmId).where('name', 'is not', null);
  if (!opts.includeDeactivated) q = q.where('deactivated', '=', 0);
  if (opts.ids) q = q.where('id', 'in', opts.ids.length ? opts.ids : [-1]);
  const groups = await q.orderBy('id').execute();
  const ids = groups.map((g) => g.id);
  const [memberMap, subgroups] = ids.length
    ? await Promise.all([activeMembersByGroup(tx, realmId, ids), tx.selectFrom('user_group_subgroups').select(['group_id', 'subgroup_id']).where('group_id', 'in', ids).orderBy('subgroup_id').execute()])
    : [new Map<number, number[]>(), []];
  const perms = groups.map((g) => parsePermissions(g));
  const values = await groupSettingValues(tx, perms.flatMap((p) => Object.values(p) as number[]));
  const subgroupMap = byGroup(subgroups);
  return groups.map((g, i) => ({
    id: g.id,
    name: g.name,
    description: g.description,
    members: memberMap.get(g.id) ?? [],
    direct_subgroup_ids: (subgroupMap.get(g.id) ?? []).map((s) => s.subgroup_id),
    is_system_group: g.is_system_group === 1,
    date_created: g.date_created,
    creator_id: g.creator_id,
    deactivated: g.deactivated === 1,
    ...Object.fromEntries(GROUP_PERMISSIONS.filter((k) => perms[i][k] !== undefined).map((k) => [k, values.get(perms[i][k]!) ?? perms[i][k]])),
  }));
}

/**
 * Each group's direct members who are active, by user ID. Deactivated users are left out by a short
 * list (users_realm_active), not by joining every member to users. On SQLite each group's list comes
 * as one JSON array: the system groups of a 1,000-person organization hold thousands of rows, and
 * reading them one row at a time cost 1.2–1.9 ms of a register, against 0.4 ms this way.
 */
async function activeMembersByGroup(tx: Tx, realmId: number, groupIds: number[]): Promise<Map<number, number[]>> {
  const q = tx
    .selectFrom('user_group_members')
    .where('group_id', 'in', groupIds)
    .where('user_id', 'not in', tx.selectFrom('users').select('id').where('realm_id', '=', realmId).where('is_active', '=', 0));
  const out = new Map<number, number[]>();
  if (storeOf(tx)?.dialect === 'sqlite') {
    const rows = await q.select(['group_id', sql<string>`json_group_array(user_id)`.as('ids')]).groupBy('group_id').execute();
    // Sorted here: an aggregate's input order is the index's in practice, but SQL does not promise it.
    for (const r of rows) out.set(r.group_id, (JSON.parse(r.ids) as number[]).sort((a, b) => a - b));
    return out;
  }
  for (const [groupId, rows] of byGroup(await q.select(['group_id', 'user_id']).orderBy('user_id').execute())) out.set(groupId, rows.map((r) => r.user_id));
  return out;
}

/** Rows by their group, each group's rows in the order given. */
function byGroup<T extends { group_id: number }>(rows: T[]): Map<number, T[]> {
  const m = new Map<number, T[]>();
  for (const r of rows) {
    const list = m.get(r.group_id);
    if (list) list.push(r);
    else m.set(r.group_id, [r]);
  }
  return m;
}

/** Guests may not read or change user groups (the reference: not available to guest users). */
export function requireNonGuest(user: Pick<User, 'role'>): void {
  if (user.role === Role.GUEST) throw badRequest('Not allowed for guest users');
}

/** A named group of the organization (deactivated included); anonymous and foreign groups are invalid. */
export async function accessGroup(tx: Tx, realmId: number, groupId: number): Promise<UserGroup> {
  const g = await tx.selectFrom('user_groups').selectAll().where('id', '=', groupId).where('realm_id', '=', realmId).executeTakeFirst();
  if (!g || g.name === null) throw invalidGroup();
  return g;
}

/** As accessGroup, for a change: system groups are managed by the server alone. */
export async function accessGroupForUpdate(tx: Tx, realmId: number, groupId: number): Promise<UserGroup> {
  const g = await accessGroup(tx, realmId, groupId);
  if (g.is_system_group) throw insufficient();
  return g;
}

type Actor = Pick<User, 'id' | 'role' | 'realm_id' | 'is_active'>;

/** Whether the actor may manage the group: its can_manage_group, or the organization's can_manage_all_groups. */
export async function canManageGroup(tx: Tx, actor: Actor, realm: Pick<Realm, 'settings'>, g: UserGroup): Promise<boolean> {
  if (await hasRealmPermission(tx, actor, realm, 'can_manage_all_groups')) return true;
  const id = parsePermissions(g).can_manage_group;
  return id !== undefined && isUserInGroup(tx, actor, id);
}

/** Whether the actor holds one of the group's permission settings, or manages the group. */
export async function hasGroupPermission(tx: Tx, actor: Actor, realm: Pick<Realm, 'settings'>, g: UserGroup, setting: GroupPermission): Promise<boolean> {
  const id = parsePermissions(g)[setting];
  if (id !== undefined && (await isUserInGroup(tx, actor, id))) return true;
  return canManageGroup(tx, actor, realm, g);
}

/** Checks a new group name: length, reserved prefixes, and uniqueness among the organization's named groups. */
export async function checkGroupName(tx: Tx, realmId: number, name: string, exceptId: number | null): Promise<string> {
  const n = name.trim();
  if (!n) throw badRequest('User group name cannot be empty.');
  if ([...n].length > MAX_GROUP_NAME_LENGTH) throw badRequest(`User group name cannot exceed ${MAX_GROUP_NAME_LENGTH} characters.`);
  const prefix = RESERVED_PREFIXES.find((p) => n.startsWith(p));
  if (prefix) throw badRequest(`User group name cannot start with '${prefix}'.`);
  let q = tx.selectFrom('user_groups').select('id').where('realm_id', '=', realmId).where('name', '=', n);
  if (exceptId !== null) q = q.where('id', '!=', exceptId);
  if (await q.executeTakeFirst()) throw badRequest(`User group '${n}' already exists.`);
  return n;
}

export function checkGroupDescription(description: string): string {
  if ([...description].length > MAX_GROUP_DESCRIPTION_LENGTH) throw badRequest(`User group description cannot exceed ${MAX_GROUP_DESCRIPTION_LENGTH} characters.`);
  return description;
}

/** Refuses a setting value naming a system group the setting may not be (directly or as an anonymous group's subgroup). */
export async function checkSettingRestrictions(tx: Tx, realmId: number, setting: GroupPermission, value: GroupSettingValue): Promise<void> {
  const ids = typeof value === 'number' ? [value] : value.direct_subgroups;
  if (!ids.length) return;
  const rows = await tx.selectFrom('user_groups').select(['id', 'name', 'is_system_group']).where('realm_id', '=', realmId).where('id', 'in', ids).execute();
  for (const r of rows) {
    if (r.is_system_group && r.name && GROUP_PERMISSION_FORBIDDEN[setting].includes(r.name)) throw badRequest(`'${setting}' setting cannot be set to '${r.name}' group.`);
  }
}

/** The canonical form of a setting value: a single subgroup with no members is that group. */
export function normalizeSettingValue(v: GroupSettingValue): GroupSettingValue {
  if (typeof v === 'number') return v;
  if (!v.direct_members.length && v.direct_subgroups.length === 1) return v.direct_subgroups[0];
  return { direct_members: [...new Set(v.direct_members)].sort((a, b) => a - b), direct_subgroups: [...new Set(v.direct_subgroups)].sort((a, b) => a - b) };
}

export function sameSettingValue(a: GroupSettingValue, b: GroupSettingValue): boolean {
  return JSON.stringify(normalizeSettingValue(a)) === JSON.stringify(normalizeSettingValue(b));
}

/** Active users of the organization, for membership changes; any other ID is "Invalid user ID". */
export async function checkActiveUsers(tx: Tx, realmId: number, ids: number[]): Promise<void> {
  if (!ids.length) return;
  const rows = await tx.selectFrom('users').select('id').where('realm_id', '=', realmId).where('id', 'in', ids).where('is_active', '=', 1).execute();
  const ok = new Set(rows.map((r) => r.id));
  const bad = ids.find((id) => !ok.has(id));
  if (bad !== undefined) throw new ApiError(`Invalid user ID: ${bad}`, 'BAD_REQUEST', 400);
}

/** Named, active groups of the organization that may become subgroups. */
export async function checkSubgroupIds(tx: Tx, realmId: number, ids: number[], allowDeactivated = false): Promise<void> {
  if (!ids.length) return;
  const rows = await tx.selectFrom('user_groups').select(['id', 'name', 'deactivated']).where('realm_id', '=', realmId).where('id', 'in', ids).execute();
  const ok = new Set(rows.filter((r) => r.name !== null && (allowDeactivated || !r.deactivated)).map((r) => r.id));
  if (ids.some((id) => !ok.has(id))) throw invalidGroup();
}

/**
 * Where a group is still used: organization settings, channel permissions, other groups' settings
 * (directly or inside an anonymous group), and as a subgroup of an active named group.
 */
export async function groupObjections(tx: Tx, realm: Realm, groupId: number): Promise<Record<string, unknown>[]> {
  const parents = await tx
    .selectFrom('user_group_subgroups')
    .innerJoin('user_groups', 'user_groups.id', 'user_group_subgroups.group_id')
    .select(['user_groups.id', 'user_groups.name', 'user_groups.deactivated'])
    .where('user_group_subgroups.subgroup_id', '=', groupId)
    .execute();
  // A setting refers to the group when its value is the group or an anonymous group containing it.
  const refs = new Set<number>([groupId, ...parents.filter((p) => p.name === null).map((p) => p.id)]);
  const out: Record<string, unknown>[] = [];
  const rs = realmSettings(realm);
  const realmHits = Object.keys(REALM_GROUP_SETTINGS).filter((k) => typeof rs[k] === 'number' && refs.has(rs[k] as number)).sort();
  if (realmHits.length) out.push({ type: 'realm', settings: realmHits });
  const streams = await tx.selectFrom('streams').select(['id', 'permissions']).where('realm_id', '=', realm.id).where('is_archived', '=', 0).orderBy('id').execute();
  for (const st of streams) {
    const p = JSON.parse(st.permissions || '{}') as Record<string, number>;
    const hits = Object.keys(p).filter((k) => refs.has(p[k])).sort();
    if (hits.length) out.push({ type: 'channel', channel_id: st.id, settings: hits });
  }
  const groups = await tx.selectFrom('user_groups').select(['id', 'permissions']).where('realm_id', '=', realm.id).where('name', 'is not', null).where('deactivated', '=', 0).where('id', '!=', groupId).orderBy('id').execute();
  const supergroups = new Set(parents.filter((p) => p.name !== null && !p.deactivated).map((p) => p.id));
  for (const g of groups) {
    const p = parsePermissions(g);
    const hits: string[] = GROUP_PERMISSIONS.filter((k) => p[k] !== undefined && refs.has(p[k]!));
    if (supergroups.has(g.id)) hits.push('direct_subgroup_ids');
    if (hits.length) out.push({ type: 'user_group', group_id: g.id, settings: hits });
  }
  return out;
}
