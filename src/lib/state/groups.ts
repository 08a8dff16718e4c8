// Register state for user_group: the organization's groups with members, subgroups and permissions.
import type { StateFetcher } from './context.js';
import { presentUserGroups } from '../groups.js';

export const userGroupState: StateFetcher = {
  types: ['user_group', 'realm_user_groups'],
  async fetch({ tx, realm, opts }) {
    // Clients without include_deactivated_groups learn of a deactivation as a remove event.
    const includeDeactivated = opts.capabilities.include_deactivated_groups === true;
    return { realm_user_groups: await presentUserGroups(tx, realm.id, { includeDeactivated }) };
  },
};
