// Register state about people: user_status (everyone's statuses the user may see), muted_users (their own
// list) and the incoming-webhook integrations offered.
import type { StateFetcher } from './context.js';
import { realmStatuses } from '../user-status.js';
import { mutedUsersOf } from '../muted-users.js';
import { INTEGRATIONS } from '../incoming-webhooks.js';

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


/** realm_incoming_webhook_bots: the integrations this server offers (fixed; no event changes them). */
export const incomingWebhookState: StateFetcher = {
  types: ['realm_incoming_webhook_bots'],
  async fetch() {
    return { realm_incoming_webhook_bots: INTEGRATIONS };
  },
};

export const peopleStates: StateFetcher[] = [userStatusState, mutedUsersState, incomingWebhookState];
