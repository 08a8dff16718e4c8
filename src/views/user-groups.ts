// User groups: /user_groups, /user_groups/create, /user_groups/{id} (PATCH), members, subgroups, deactivate.
import type { RouteList } from '../http/router.js';
import { endpoint } from '../http/endpoint.js';
import { badRequest } from '../core/api-error.js';
import { invalidParam, vIntList, vObject } from '../core/params.js';
import { Type, bool, id, json, loose, str } from '../core/param-types.js';
import { vGroupSetting } from '../lib/streams/permissions.js';
import { GroupSetting, Int32List, groupSettingParam } from '../lib/streams/params.js';
import { directMemberIds, directSubgroupIds, expandSubgroups, groupMemberIds, isDirectMember, isUserInGroup, type GroupSettingValue } from '../lib/groups.js';
import { userById } from '../lib/users.js';
import { accessGroup, GROUP_PERMISSIONS, invalidGroup, presentUserGroups, requireNonGuest, type GroupPermission } from '../lib/groups.js';
import { doCreateUserGroup, doDeactivateUserGroup, doUpdateUserGroup, type GroupSettingUpdate } from '../actions/user-groups.js';
import { doUpdateGroupMembership } from '../actions/user-group-members.js';

/** A group ID in the path: one past 32 bits names no group. */
const groupId = { user_group_id: id({ invalid: invalidGroup }) };

/** The PATCH form of a group setting: {"new": value, "old": value} with "old" optional. */
function vSettingUpdate(value: unknown, name: string): GroupSettingUpdate {
  const o = vObject(value, name);
  const extra = Object.keys(o).filter((k) => k !== 'new' && k !== 'old');
  if (extra.length) throw invalidParam(`${name} has unexpected keys: ${extra.join(', ')}`, name);
  if (o.new === undefined) throw invalidParam(`${name}["new"] is missing`, name);
  const out: GroupSettingUpdate = { new: vGroupSetting(o.new, `${name}["new"]`) };
  if (o.old !== undefined) out.old = vGroupSetting(o.old, `${name}["old"]`);
  return out;
}

const settingParams = Object.fromEntries(GROUP_PERMISSIONS.map((k) => [k, groupSettingParam()])) as Record<GroupPermission, ReturnType<typeof groupSettingParam>>;
const SettingUpdate = Type.Object({ new: GroupSetting, old: Type.Optional(GroupSetting) });
const settingUpdateParams = Object.fromEntries(GROUP_PERMISSIONS.map((k) => [k, json(SettingUpdate, { validate: vSettingUpdate })])) as Record<GroupPermission, ReturnType<typeof json<typeof SettingUpdate, GroupSettingUpdate>>>;

/** Picks the group settings a request named. */
function namedSettings<T>(a: object): Partial<Record<GroupPermission, T>> {
  const out: Partial<Record<GroupPermission, T>> = {};
  for (const k of GROUP_PERMISSIONS) {
    const v = (a as Record<string, T | undefined>)[k];
    if (v !== undefined) out[k] = v;
  }
  return out;
}

const ids = () => json(Int32List, { validate: vIntList, default: [] as number[] });

const UserGroup = loose(
  Type.Object({
    id: Type.Integer(),
    name: Type.String(),
    description: Type.String(),
    members: Type.Array(Type.Integer()),
    direct_subgroup_ids: Type.Array(Type.Integer()),
    is_system_group: Type.Boolean(),
    deactivated: Type.Boolean(),
  }),
);

const create = endpoint({
  summary: 'Create a user group',
  params: {
    name: str({ required: true }),
    description: str({ required: true }),
    members: json(Int32List, { required: true, validate: vIntList }),
    subgroups: ids(),
    ...settingParams,
  },
  response: Type.Object({ group_id: Type.Integer() }),
  run: async (req, a) => {
    const settings = namedSettings<GroupSettingValue>(a);
    const groupId = await doCreateUserGroup(req.app, req.realm, req.user, { name: a.name, description: a.description, members: a.members, subgroups: a.subgroups, settings });
    return { group_id: groupId };
  },
});

const list = endpoint({
  summary: 'Get user groups',
  params: { include_deactivated_groups: bool({ default: false }) },
  response: Type.Object({ user_groups: Type.Array(UserGroup) }),
  run: async (req, a) => {
    requireNonGuest(req.user);
    const groups = await req.app.store.read((tx) => presentUserGroups(tx, req.realm.id, { includeDeactivated: a.include_deactivated_groups }));
    return { user_groups: groups };
  },
});

const update = endpoint({
  summary: 'Update a user group',
  path: groupId,
  params: { name: str(), description: str(), ...settingUpdateParams, deactivated: bool() },
  response: Type.Object({}),
  run: async (req, a) => {
    const settings = namedSettings<GroupSettingUpdate>(a);
    const { name, description, deactivated } = a;
    if (name === undefined && description === undefined && !Object.keys(settings).length && deactivated === undefined) throw badRequest('No new data supplied');
    await doUpdateUserGroup(req.app, req.realm, req.user, a.user_group_id, { name, description, settings, deactivated });
    return {};
  },
});

const deactivate = endpoint({
  summary: 'Deactivate a user group',
  path: groupId,
  response: Type.Object({}),
  run: async (req, a) => {
    await doDeactivateUserGroup(req.app, req.realm, req.user, a.user_group_id);
    return {};
  },
});

const updateMembers = endpoint({
  summary: 'Update user group members',
  path: groupId,
  params: { add: ids(), delete: ids(), add_subgroups: ids(), delete_subgroups: ids() },
  response: Type.Object({}),
  run: async (req, a) => {
    const change = { add: a.add, delete: a.delete, addSubgroups: a.add_subgroups, deleteSubgroups: a.delete_subgroups };
    if (!change.add.length && !change.delete.length && !change.addSubgroups.length && !change.deleteSubgroups.length) {
      throw badRequest("Nothing to do. Specify at least one of 'add', 'delete', 'add_subgroups' or 'delete_subgroups'.");
    }
    await doUpdateGroupMembership(req.app, req.realm, req.user, a.user_group_id, change);
    return {};
  },
});

const updateSubgroups = endpoint({
  summary: 'Update subgroups of a user group',
  path: groupId,
  params: { add: ids(), delete: ids() },
  response: Type.Object({}),
  run: async (req, a) => {
    const change = { add: [], delete: [], addSubgroups: a.add, deleteSubgroups: a.delete };
    if (!change.addSubgroups.length && !change.deleteSubgroups.length) throw badRequest("Nothing to do. Specify at least one of 'add' or 'delete'.");
    await doUpdateGroupMembership(req.app, req.realm, req.user, a.user_group_id, change);
    return {};
  },
});

const getMembers = endpoint({
  summary: 'Get user group members',
  path: groupId,
  params: { direct_member_only: bool({ default: false }) },
  response: Type.Object({ members: Type.Array(Type.Integer()) }),
  run: async (req, a) => {
    requireNonGuest(req.user);
    const members = await req.app.store.read(async (tx) => {
      const g = await accessGroup(tx, req.realm.id, a.user_group_id);
      if (!a.direct_member_only) return groupMemberIds(tx, g.id);
      return directMemberIds(tx, g.id);
    });
    return { members: members.sort((x, y) => x - y) };
  },
});

const isMember = endpoint({
  summary: 'Get user group membership status',
  path: { ...groupId, user_id: id({ invalid: () => badRequest('No such user') }) },
  params: { direct_member_only: bool({ default: false }) },
  response: Type.Object({ is_user_group_member: Type.Boolean() }),
  run: async (req, a) => {
    requireNonGuest(req.user);
    const result = await req.app.store.read(async (tx) => {
      const g = await accessGroup(tx, req.realm.id, a.user_group_id);
      const u = await userById(tx, req.realm.id, a.user_id);
      if (!u) throw badRequest('No such user');
      // Deactivated users are members of nothing (FL 303); bots are asked about like anyone (FL 458).
      if (!u.is_active) return false;
      if (!a.direct_member_only) return isUserInGroup(tx, u, g.id);
      return isDirectMember(tx, g.id, u.id);
    });
    return { is_user_group_member: result };
  },
});

const getSubgroups = endpoint({
  summary: 'Get subgroups of a user group',
  path: groupId,
  params: { direct_subgroup_only: bool({ default: false }) },
  response: Type.Object({ subgroups: Type.Array(Type.Integer()) }),
  run: async (req, a) => {
    requireNonGuest(req.user);
    const subgroups = await req.app.store.read(async (tx) => {
      const g = await accessGroup(tx, req.realm.id, a.user_group_id);
      if (a.direct_subgroup_only) return directSubgroupIds(tx, g.id);
      const all = await expandSubgroups(tx, [g.id]);
      all.delete(g.id);
      return [...all];
    });
    return { subgroups: subgroups.sort((x, y) => x - y) };
  },
});

export const routes: RouteList = [
  ['user_groups', { GET: list }],
  ['user_groups/create', { POST: create }],
  ['user_groups/{user_group_id:int}', { PATCH: update }],
  ['user_groups/{user_group_id:int}/deactivate', { POST: deactivate }],
  ['user_groups/{user_group_id:int}/members', { GET: getMembers, POST: updateMembers }],
  ['user_groups/{user_group_id:int}/members/{user_id:int}', { GET: isMember }],
  ['user_groups/{user_group_id:int}/subgroups', { GET: getSubgroups, POST: updateSubgroups }],
];
