// Register state for user_group: the organization's groups with members, subgroups and permissions.
import type { StateFetcher } from './context.js';
import { groupSettingValues } from '../groups.js';

export const userGroupState: StateFetcher = {
  types: ['user_group', 'realm_user_groups'],
  async fetch({ tx, realm, opts }) {
    const includeDeactivated = opts.capabilities.include_deactivated_groups === true;
    let q = tx.selectFrom('user_groups').selectAll().where('realm_id', '=', realm.id).where('name', 'is not', null);
    if (!includeDeactivated) q = q.where('deactivated', '=', 0);
    const groups = await q.orderBy('id').execute();
    const ids = groups.map((g) => g.id);
    const [members, subgroups] = ids.length
      ? await Promise.all([
          tx.selectFrom('user_group_members').innerJoin('users', 'users.id', 'user_group_members.user_id').select(['group_id', 'user_id']).where('group_id', 'in', ids).where('users.is_active', '=', 1).orderBy('user_id').execute(),
          tx.selectFrom('user_group_subgroups').select(['group_id', 'subgroup_id']).where('group_id', 'in', ids).orderBy('subgroup_id').execute(),
        ])
      : [[], []];
    const perms = groups.map((g) => JSON.parse(g.permissions) as Record<string, number>);
    const values = await groupSettingValues(tx, perms.flatMap((p) => Object.values(p)));
    return {
      realm_user_groups: groups.map((g, i) => ({
        id: g.id,
        name: g.name,
        description: g.description,
        members: members.filter((m) => m.group_id === g.id).map((m) => m.user_id),
        direct_subgroup_ids: subgroups.filter((s) => s.group_id === g.id).map((s) => s.subgroup_id),
        is_system_group: g.is_system_group === 1,
        date_created: g.date_created,
        creator_id: g.creator_id,
        deactivated: g.deactivated === 1,
        ...Object.fromEntries(Object.entries(perms[i]).map(([k, v]) => [k, values.get(v) ?? v])),
      })),
    };
  },
};
