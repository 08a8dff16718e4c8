// User group membership: adding and removing members and subgroups, checked against the group's permissions.
import type { AppContext } from '../context.js';
import type { Realm, User, UserGroup } from '../store/schema.js';
import type { Tx } from '../store/store.js';
import { badRequest } from '../core/api-error.js';
import { expandSubgroups } from '../lib/groups.js';
import { activeUserIds } from '../lib/users.js';
import { accessGroupForUpdate, checkActiveUsers, checkSubgroupIds, hasGroupPermission, insufficient, requireNonGuest } from '../lib/groups.js';
import { writeWithEvents, to, type Outgoing } from '../events/publish.js';
import { lockRow } from './user-groups.js';

export interface MembershipChange {
  add: number[];
  delete: number[];
  addSubgroups: number[];
  deleteSubgroups: number[];
}

const uniq = (ids: number[]) => [...new Set(ids)];

/** Applies the changes in one transaction: all are checked before any is made, so one error changes nothing. */
export async function doUpdateGroupMembership(app: AppContext, realm: Realm, actor: User, groupId: number, c: MembershipChange): Promise<void> {
  requireNonGuest(actor);
  await writeWithEvents(
    app,
    realm.id,
    async (tx) => {
      await lockRow(tx, app.store.dialect, 'user_groups', groupId);
      const g = await accessGroupForUpdate(tx, realm.id, groupId);
      const add = uniq(c.add);
      const del = uniq(c.delete);
      const addSub = uniq(c.addSubgroups);
      const delSub = uniq(c.deleteSubgroups);
      await checkPermissions(tx, realm, actor, g, { add, del, addSub, delSub });

      await checkActiveUsers(tx, realm.id, [...add, ...del]);
      const direct = new Set(
        (await tx.selectFrom('user_group_members').select('user_id').where('group_id', '=', g.id).execute()).map((r) => r.user_id),
      );
      for (const id of add) if (direct.has(id)) throw badRequest(`User ${id} is already a member of this group`);
      for (const id of del) if (!direct.has(id)) throw badRequest(`There is no member '${id}' in this user group`);

      await checkSubgroupIds(tx, realm.id, addSub);
      await checkSubgroupIds(tx, realm.id, delSub, true);
      const subs = new Set((await tx.selectFrom('user_group_subgroups').select('subgroup_id').where('group_id', '=', g.id).execute()).map((r) => r.subgroup_id));
      for (const id of addSub) if (subs.has(id)) throw badRequest(`User group ${id} is already a subgroup of this group.`);
      for (const id of delSub) if (!subs.has(id)) throw badRequest(`User group ${id} is not a subgroup of this group.`);
      // A group reachable from a new subgroup (itself included) would make the subgroup graph a cycle.
      if (addSub.length && (await expandSubgroups(tx, addSub)).has(g.id)) {
        throw badRequest(`User group ${g.id} is already a subgroup of one of the passed subgroups.`);
      }

      if (add.length) await tx.insertInto('user_group_members').values(add.map((user_id) => ({ group_id: g.id, user_id }))).execute();
      if (del.length) await tx.deleteFrom('user_group_members').where('group_id', '=', g.id).where('user_id', 'in', del).execute();
      if (addSub.length) await tx.insertInto('user_group_subgroups').values(addSub.map((subgroup_id) => ({ group_id: g.id, subgroup_id }))).execute();
      if (delSub.length) await tx.deleteFrom('user_group_subgroups').where('group_id', '=', g.id).where('subgroup_id', 'in', delSub).execute();

      const users = await activeUserIds(tx, realm.id);
      const sorted = (ids: number[]) => [...ids].sort((a, b) => a - b);
      const events: Outgoing[] = [];
      if (add.length) events.push(to(users, { type: 'user_group', op: 'add_members', group_id: g.id, user_ids: sorted(add) }));
      if (del.length) events.push(to(users, { type: 'user_group', op: 'remove_members', group_id: g.id, user_ids: sorted(del) }));
      if (addSub.length) events.push(to(users, { type: 'user_group', op: 'add_subgroups', group_id: g.id, direct_subgroup_ids: sorted(addSub) }));
      if (delSub.length) events.push(to(users, { type: 'user_group', op: 'remove_subgroups', group_id: g.id, direct_subgroup_ids: sorted(delSub) }));
      return events;
    },
    (events) => events,
  );
}

/**
 * Joining (adding only oneself) needs can_join_group, leaving can_leave_group; adding others or
 * subgroups needs can_add_members_group, removing them can_remove_members_group. Managing the group
 * (can_manage_group, or the organization's can_manage_all_groups) allows all of these.
 */
async function checkPermissions(
  tx: Tx,
  realm: Realm,
  actor: User,
  g: UserGroup,
  c: { add: number[]; del: number[]; addSub: number[]; delSub: number[] },
): Promise<void> {
  const onlySelf = (ids: number[]) => ids.length > 0 && ids.every((id) => id === actor.id);
  if (c.add.length || c.addSub.length) {
    const ok =
      (await hasGroupPermission(tx, actor, realm, g, 'can_add_members_group')) ||
      (onlySelf(c.add) && !c.addSub.length && (await hasGroupPermission(tx, actor, realm, g, 'can_join_group')));
    if (!ok) throw insufficient();
  }
  if (c.del.length || c.delSub.length) {
    const ok =
      (await hasGroupPermission(tx, actor, realm, g, 'can_remove_members_group')) ||
      (onlySelf(c.del) && !c.delSub.length && (await hasGroupPermission(tx, actor, realm, g, 'can_leave_group')));
    if (!ok) throw insufficient();
  }
}
