// Register state about people: user_status (everyone's statuses the user may see) and muted_users (their own list).
import type { StateFetcher } from './context.js';
import { realmStatuses } from '../user-status.js';
import { mutedUsersOf } from '../muted-users.js';

const userStatusState: StateFetcher = {
  types: ['user_status'],
  async fetch({ tx, realm, user }) {
    return { user_status: await realmStatuses(tx, realm, user) };
  },
};

const mutedUsersState: StateFetcher = {
  types: ['muted_users'],
  async fetch({ tx, user }) {
    return { muted_users: user ? await mutedUsersOf(tx, user.id) : [] };
  },
};

export const peopleStates: StateFetcher[] = [userStatusState, mutedUsersState];
