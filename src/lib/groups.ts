// Reads about user groups: system groups, recursive membership, and group-setting values.
import { storeOf, whenCommitted, type Store, type Tx } from '../store/store.js';
import type { User } from '../store/schema.js';
import { roleInSystemGroup, SYSTEM_GROUPS, type SystemGroupName } from '../models/system-groups.js';

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
