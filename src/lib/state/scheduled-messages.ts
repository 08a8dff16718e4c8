// Register state for scheduled messages: the user's undelivered ones, soonest first.
import type { StateFetcher } from './context.js';
import { userScheduledMessages } from '../scheduled-messages.js';

export const scheduledMessagesState: StateFetcher = {
  types: ['scheduled_messages'],
  async fetch({ tx, user }) {
    return user ? { scheduled_messages: await userScheduledMessages(tx, user.id) } : {};
  },
};
