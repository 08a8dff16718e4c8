// Register state for reminders: the user's undelivered reminders, soonest first.
import type { StateFetcher } from './context.js';
import { userReminders } from '../reminders.js';

export const remindersState: StateFetcher = {
  types: ['reminders'],
  async fetch({ tx, user }) {
    return user ? { reminders: await userReminders(tx, user.id) } : {};
  },
};
