// The bot object of register's realm_bots and the realm_bot events (the user object carries the rest).
import type { User } from '../store/schema.js';
import { NO_BOT_CONFIG, type BotConfig } from '../lib/bots.js';

export function presentBot(u: Pick<User, 'id'>, config: BotConfig = NO_BOT_CONFIG): Record<string, unknown> {
  return { user_id: u.id, ...config, services: config.services ?? [] };
}
