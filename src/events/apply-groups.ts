// Applies user_group events to register state (realm_user_groups), as a client would. Pure.
import { byNumber, type Event, type State } from './apply-util.js';

export function applyUserGroup(state: State, e: Event): void {
  const groups: any[] | undefined = state.realm_user_groups;
  if (!groups) return;
  if (e.op === 'add') {
    // Reactivation sends the whole group again to clients that had dropped it.
    state.realm_user_groups = groups.filter((x) => x.id !== e.group.id);
    state.realm_user_groups.push(structuredClone(e.group));
    state.realm_user_groups.sort((a: any, b: any) => a.id - b.id);
    return;
  }
  if (e.op === 'remove') {
    state.realm_user_groups = groups.filter((x) => x.id !== e.group_id);
    return;
  }
  const g = groups.find((x) => x.id === e.group_id);
  if (!g) return;
  switch (e.op) {
    case 'add_members':
      g.members = [...new Set([...g.members, ...e.user_ids])].sort(byNumber);
      return;
    case 'remove_members':
      g.members = g.members.filter((u: number) => !e.user_ids.includes(u));
      return;
    case 'add_subgroups':
      g.direct_subgroup_ids = [...new Set([...g.direct_subgroup_ids, ...e.direct_subgroup_ids])].sort(byNumber);
      return;
    case 'remove_subgroups':
      g.direct_subgroup_ids = g.direct_subgroup_ids.filter((x: number) => !e.direct_subgroup_ids.includes(x));
      return;
    case 'update':
      Object.assign(g, structuredClone(e.data));
      return;
  }
}
