// The bot object of register's realm_bots and the realm_bot events (the user object carries the rest).
import type { User } from '../store/schema.js';

export function presentBot(u: Pick<User, 'id'>): Record<string, unknown> {
  return { user_id: u.id, default_sending_stream: null, default_events_register_stream: null, default_all_public_streams: false, services: [] };
}
