// User groups: /user_groups, /user_groups/create, /user_groups/{id} (PATCH), members, subgroups, deactivate.
import type { RouteList } from '../http/router.js';
import type { AuthedRequest } from '../http/types.js';
import type { Params } from '../core/params.js';
import { authed } from '../http/handlers.js';
import { badRequest } from '../core/api-error.js';
import { invalidParam, toInt, vIntList, vObject } from '../core/params.js';
import { vGroupSetting } from '../lib/streams/permissions.js';
import { directMemberIds, directSubgroupIds, expandSubgroups, groupMemberIds, isDirectMember, isUserInGroup, type GroupSettingValue } from '../lib/groups.js';
import { userById } from '../lib/users.js';
import { accessGroup, GROUP_PERMISSIONS, presentUserGroups, requireNonGuest, type GroupPermission } from '../lib/user-groups.js';
import { doCreateUserGroup, doDeactivateUserGroup, doUpdateUserGroup, type GroupSettingUpdate } from '../actions/user-groups.js';
import { doUpdateGroupMembership } from '../actions/user-group-members.js';

const groupIdOf = (req: AuthedRequest) => toInt(req.pathParams.user_group_id, 'user_group_id');

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

const create = authed(async (req) => {
  const p = req.params;
  const name = p.reqStr('name');
  const description = p.reqStr('description');
  const members = p.reqJson('members', vIntList);
  const subgroups = p.json('subgroups', vIntList) ?? [];
  const settings: Partial<Record<GroupPermission, GroupSettingValue>> = {};
  for (const k of GROUP_PERMISSIONS) {
    const v = p.json(k, vGroupSetting);
    if (v !== undefined) settings[k] = v;
  }
  const groupId = await doCreateUserGroup(req.app, req.realm, req.user, { name, description, members, subgroups, settings });
  return { group_id: groupId };
});

const list = authed(async (req) => {
  requireNonGuest(req.user);
  const includeDeactivated = req.params.bool('include_deactivated_groups', false);
  const groups = await req.app.store.read((tx) => presentUserGroups(tx, req.realm.id, { includeDeactivated }));
  return { user_groups: groups };
});

const update = authed(async (req) => {
  const p = req.params;
  const name = p.str('name');
  const description = p.str('description');
  const settings: Partial<Record<GroupPermission, GroupSettingUpdate>> = {};
  for (const k of GROUP_PERMISSIONS) {
    const v = p.json(k, vSettingUpdate);
    if (v !== undefined) settings[k] = v;
  }
  const deactivated = p.optBool('deactivated');
  if (name === undefined && description === undefined && !Object.keys(settings).length && deactivated === undefined) throw badRequest('No new data supplied');
  await doUpdateUserGroup(req.app, req.realm, req.user, groupIdOf(req), { name, description, settings, deactivated });
  return {};
});

const deactivate = authed(async (req) => {
  await doDeactivateUserGroup(req.app, req.realm, req.user, groupIdOf(req));
  return {};
});

const intList = (p: Params, name: string) => p.json(name, vIntList) ?? [];

const updateMembers = authed(async (req) => {
  const p = req.params;
  const change = { add: intList(p, 'add'), delete: intList(p, 'delete'), addSubgroups: intList(p, 'add_subgroups'), deleteSubgroups: intList(p, 'delete_subgroups') };
  if (!change.add.length && !change.delete.length && !change.addSubgroups.length && !change.deleteSubgroups.length) {
    throw badRequest("Nothing to do. Specify at least one of 'add', 'delete', 'add_subgroups' or 'delete_subgroups'.");
  }
  await doUpdateGroupMembership(req.app, req.realm, req.user, groupIdOf(req), change);
  return {};
});

const updateSubgroups = authed(async (req) => {
  const p = req.params;
  const change = { add: [], delete: [], addSubgroups: intList(p, 'add'), deleteSubgroups: intList(p, 'delete') };
  if (!change.addSubgroups.length && !change.deleteSubgroups.length) throw badRequest("Nothing to do. Specify at least one of 'add' or 'delete'.");
  await doUpdateGroupMembership(req.app, req.realm, req.user, groupIdOf(req), change);
  return {};
});

const getMembers = authed(async (req) => {
  requireNonGuest(req.user);
  const directOnly = req.params.bool('direct_member_only', false);
  const members = await req.app.store.read(async (tx) => {
    const g = await accessGroup(tx, req.realm.id, groupIdOf(req));
    if (!directOnly) return groupMemberIds(tx, g.id);
    return directMemberIds(tx, g.id);
  });
  return { members: members.sort((a, b) => a - b) };
});

const isMember = authed(async (req) => {
  requireNonGuest(req.user);
  const directOnly = req.params.bool('direct_member_only', false);
  const userId = toInt(req.pathParams.user_id, 'user_id');
  const result = await req.app.store.read(async (tx) => {
    const g = await accessGroup(tx, req.realm.id, groupIdOf(req));
    const u = await userById(tx, req.realm.id, userId);
    if (!u) throw badRequest('No such user');
    // Deactivated users are members of nothing (FL 303); bots are asked about like anyone (FL 458).
    if (!u.is_active) return false;
    if (!directOnly) return isUserInGroup(tx, u, g.id);
    return isDirectMember(tx, g.id, u.id);
  });
  return { is_user_group_member: result };
});

const getSubgroups = authed(async (req) => {
  requireNonGuest(req.user);
  const directOnly = req.params.bool('direct_subgroup_only', false);
  const subgroups = await req.app.store.read(async (tx) => {
    const g = await accessGroup(tx, req.realm.id, groupIdOf(req));
    if (directOnly) return directSubgroupIds(tx, g.id);
    const all = await expandSubgroups(tx, [g.id]);
    all.delete(g.id);
    return [...all];
  });
  return { subgroups: subgroups.sort((a, b) => a - b) };
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
