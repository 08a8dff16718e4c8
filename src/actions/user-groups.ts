// User groups: creating, editing (name, description, permission settings), deactivating and reactivating.
import type { AppContext } from '../context.js';
import type { Realm, User } from '../store/schema.js';
import type { Tx } from '../store/store.js';
import type { Dialect } from '../store/dialect.js';
import { ApiError, badRequest } from '../core/api-error.js';
import { groupSettingValue, systemGroupIds, type GroupSettingValue } from '../lib/groups.js';
import { storeGroupSetting } from '../lib/streams/permissions.js';
import { hasRealmPermission } from '../lib/groups.js';
import { activeUserIds } from '../lib/users.js';
import {
  accessGroupForUpdate,
  canManageGroup,
  checkActiveUsers,
  checkGroupDescription,
  checkGroupName,
  checkSettingRestrictions,
  checkSubgroupIds,
  groupObjections,
  GROUP_PERMISSION_DEFAULTS,
  GROUP_PERMISSIONS,
  insufficient,
  parsePermissions,
  presentUserGroups,
  requireNonGuest,
  sameSettingValue,
  type GroupPermission,
} from '../lib/groups.js';
import { writeWithEvents, to, type Outgoing } from '../events/publish.js';

export interface NewGroupInput {
  name: string;
  description: string;
  members: number[];
  subgroups: number[];
  settings: Partial<Record<GroupPermission, GroupSettingValue>>;
}

/** PostgreSQL: name checks and membership changes read then write, so concurrent ones must queue. */
export async function lockRow(tx: Tx, dialect: Dialect, table: 'realms' | 'user_groups', id: number): Promise<void> {
  if (dialect !== 'postgres') return;
  await tx.selectFrom(table).select('id').where('id', '=', id).forUpdate().execute();
}

export async function doCreateUserGroup(app: AppContext, realm: Realm, actor: User, input: NewGroupInput): Promise<number> {
  requireNonGuest(actor);
  const now = app.clock.now();
  const { result } = await writeWithEvents(app, realm.id, async (tx) => {
    if (!(await hasRealmPermission(tx, actor, realm, 'can_create_groups'))) throw insufficient();
    await lockRow(tx, app.store.dialect, 'realms', realm.id);
    const name = await checkGroupName(tx, realm.id, input.name, null);
    const description = checkGroupDescription(input.description);
    const members = [...new Set(input.members)];
    const subgroups = [...new Set(input.subgroups)];
    await checkActiveUsers(tx, realm.id, members);
    await checkSubgroupIds(tx, realm.id, subgroups);
    const sys = await systemGroupIds(tx, realm.id);
    const permissions: Record<string, number> = {};
    for (const k of GROUP_PERMISSIONS) {
      const given = input.settings[k];
      const def = GROUP_PERMISSION_DEFAULTS[k];
      const value: GroupSettingValue = given ?? (def === 'creator' ? { direct_members: [actor.id], direct_subgroups: [] } : sys[def as keyof typeof sys]);
      await checkSettingRestrictions(tx, realm.id, k, value);
      permissions[k] = await storeGroupSetting(tx, realm.id, k, value, { creatorId: actor.id, now });
    }
    const g = await tx
      .insertInto('user_groups')
      .values({ realm_id: realm.id, name, description, is_system_group: 0, deactivated: 0, date_created: now, creator_id: actor.id, permissions: JSON.stringify(permissions) })
      .returning('id')
      .executeTakeFirstOrThrow();
    if (members.length) await tx.insertInto('user_group_members').values(members.map((user_id) => ({ group_id: g.id, user_id }))).execute();
    if (subgroups.length) await tx.insertInto('user_group_subgroups').values(subgroups.map((subgroup_id) => ({ group_id: g.id, subgroup_id }))).execute();
    const [group] = await presentUserGroups(tx, realm.id, { includeDeactivated: true, ids: [g.id] });
    return { id: g.id, events: [to(await activeUserIds(tx, realm.id), { type: 'user_group', op: 'add', group })] };
  }, (result) => result.events);
  return result.id;
}

export interface GroupSettingUpdate {
  new: GroupSettingValue;
  old?: GroupSettingValue;
}

export interface GroupUpdateInput {
  name?: string;
  description?: string;
  settings: Partial<Record<GroupPermission, GroupSettingUpdate>>;
  /** Only false means anything: true is done by the deactivate endpoint. */
  deactivated?: boolean;
}

/** PATCH /user_groups/{id}: changes what differs; one update event (and for reactivation, add to older clients). */
export async function doUpdateUserGroup(app: AppContext, realm: Realm, actor: User, groupId: number, input: GroupUpdateInput): Promise<void> {
  requireNonGuest(actor);
  const now = app.clock.now();
  await writeWithEvents(app, realm.id, async (tx) => {
    await lockRow(tx, app.store.dialect, 'realms', realm.id);
    const g = await accessGroupForUpdate(tx, realm.id, groupId);
    if (!(await canManageGroup(tx, actor, realm, g))) throw insufficient();
    const data: Record<string, unknown> = {};
    const set: { name?: string; description?: string; permissions?: string; deactivated?: number } = {};
    if (input.name !== undefined) {
      const name = await checkGroupName(tx, realm.id, input.name, g.id);
      if (name !== g.name) data.name = set.name = name;
    }
    if (input.description !== undefined) {
      const d = checkGroupDescription(input.description);
      if (d !== g.description) data.description = set.description = d;
    }
    const perms = parsePermissions(g);
    const dropped: number[] = [];
    for (const k of GROUP_PERMISSIONS) {
      const u = input.settings[k];
      if (!u) continue;
      const current = perms[k] === undefined ? null : await groupSettingValue(tx, perms[k]!);
      if (u.old !== undefined && (current === null || !sameSettingValue(u.old, current))) throw badRequest("'old' value does not match the expected value.");
      if (current !== null && sameSettingValue(u.new, current)) continue;
      await checkSettingRestrictions(tx, realm.id, k, u.new);
      const id = await storeGroupSetting(tx, realm.id, k, u.new, { creatorId: actor.id, now });
      if (perms[k] !== undefined && perms[k] !== id) dropped.push(perms[k]!);
      perms[k] = id;
      data[k] = await groupSettingValue(tx, id);
    }
    if (Object.keys(data).some((k) => k.startsWith('can_'))) set.permissions = JSON.stringify(perms);
    const reactivate = input.deactivated === false && g.deactivated === 1;
    if (reactivate) {
      set.deactivated = 0;
      data.deactivated = false;
    }
    if (!Object.keys(set).length) return { events: [] as Outgoing[] };
    await tx.updateTable('user_groups').set(set).where('id', '=', g.id).execute();
    await dropAnonymousGroups(tx, dropped);
    const users = await activeUserIds(tx, realm.id);
    const update = { type: 'user_group', op: 'update', group_id: g.id, data };
    if (!reactivate) return { events: [to(users, update)] };
    // Clients without include_deactivated_groups dropped the group when it was deactivated: it comes back whole.
    const [group] = await presentUserGroups(tx, realm.id, { includeDeactivated: true, ids: [g.id] });
    return { events: [{ users, event: update, withoutCapability: { capability: 'include_deactivated_groups', events: [{ type: 'user_group', op: 'add', group }] } }] };
  }, (result) => result.events);
}

/** Anonymous groups that backed a replaced setting value belong to nothing else. */
async function dropAnonymousGroups(tx: Tx, ids: number[]): Promise<void> {
  const anon = ids.length ? (await tx.selectFrom('user_groups').select('id').where('id', 'in', ids).where('name', 'is', null).execute()).map((r) => r.id) : [];
  if (!anon.length) return;
  await tx.deleteFrom('user_group_members').where('group_id', 'in', anon).execute();
  await tx.deleteFrom('user_group_subgroups').where('group_id', 'in', anon).execute();
  await tx.deleteFrom('user_groups').where('id', 'in', anon).execute();
}

/** POST /user_groups/{id}/deactivate: refused while anything still uses the group. */
export async function doDeactivateUserGroup(app: AppContext, realm: Realm, actor: User, groupId: number): Promise<void> {
  requireNonGuest(actor);
  await writeWithEvents(app, realm.id, async (tx) => {
    await lockRow(tx, app.store.dialect, 'realms', realm.id);
    const g = await accessGroupForUpdate(tx, realm.id, groupId);
    if (!(await canManageGroup(tx, actor, realm, g))) throw insufficient();
    if (g.deactivated) throw badRequest('User group is already deactivated.');
    const objections = await groupObjections(tx, realm, g.id);
    if (objections.length) throw new ApiError('Cannot deactivate user group in use.', 'CANNOT_DEACTIVATE_GROUP_IN_USE', 400, { objections });
    await tx.updateTable('user_groups').set({ deactivated: 1 }).where('id', '=', g.id).execute();
    const users = await activeUserIds(tx, realm.id);
    const update = { type: 'user_group', op: 'update', group_id: g.id, data: { deactivated: true } };
    return [{ users, event: update, withoutCapability: { capability: 'include_deactivated_groups', events: [{ type: 'user_group', op: 'remove', group_id: g.id }] } }];
  }, (result) => result);
}
