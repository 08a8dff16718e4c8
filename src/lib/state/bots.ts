// Register state for realm_bot: the active bots the viewer may administer (all for administrators).
import type { StateFetcher } from './context.js';
import { presentBot } from '../../presenters/bot.js';
import { Role } from '../../models/roles.js';

export const realmBotState: StateFetcher = {
  types: ['realm_bot'],
  async fetch({ tx, realm, user }) {
    if (!user) return {};
    let q = tx.selectFrom('users').select('id').where('realm_id', '=', realm.id).where('is_bot', '=', 1).where('is_active', '=', 1);
    if (user.role > Role.ADMINISTRATOR) q = q.where('bot_owner_id', '=', user.id);
    const bots = await q.orderBy('id').execute();
    return { realm_bots: bots.map(presentBot) };
  },
};
