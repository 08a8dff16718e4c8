// Register state for presence: recent presences (modern with slim_presence, else legacy) and the last update ID.
import type { StateFetcher } from './context.js';
import { presenceDict, presenceRows } from '../presence.js';

export const presenceState: StateFetcher = {
  types: ['presence'],
  async fetch({ app, tx, realm, opts }) {
    const now = app.clock.now();
    const rows = await presenceRows(tx, realm.id, { since: now - opts.presenceHistoryLimitDays * 86400 });
    return { ...presenceDict(rows, opts.slimPresence), server_timestamp: now };
  },
};
