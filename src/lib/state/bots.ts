// Register state for realm_bot: the active bots the viewer may administer (all for administrators).
import type { StateFetcher } from './context.js';
import { presentBot } from '../../presenters/bot.js';
import { administrableBots, botConfigs } from '../bots.js';

export const realmBotState: StateFetcher = {
  types: ['realm_bot'],
  async fetch({ tx, realm, user }) {
    if (!user) return {};
    const bots = await administrableBots(tx, realm, user);
    const configs = await botConfigs(tx, bots.map((b) => b.id));
    return { realm_bots: bots.map((b) => presentBot(b, configs.get(b.id))) };
  },
};
