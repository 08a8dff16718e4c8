// Reads about bots: who may administer one, their default channels, and the bot listing.
import type { Tx } from '../store/store.js';
import type { Realm, User } from '../store/schema.js';
import { badRequest } from '../core/api-error.js';
import { Role } from '../models/roles.js';
import { botServices, type ServiceDict } from './outgoing-webhooks.js';

export interface BotConfig {
  default_sending_stream: string | null;
  default_events_register_stream: string | null;
  default_all_public_streams: boolean;
  /** An outgoing-webhook bot's service (base_url, interface, token); none for other bots. */
  services?: ServiceDict[];
}

export const NO_BOT_CONFIG: BotConfig = { default_sending_stream: null, default_events_register_stream: null, default_all_public_streams: false };

/** Default channels of the given bots, by bot ID (channel names, as the Bot object carries them). */
export async function botConfigs(tx: Tx, botIds: number[]): Promise<Map<number, BotConfig>> {
  const out = new Map<number, BotConfig>();
  if (!botIds.length) return out;
  const rows = await tx
    .selectFrom('bot_settings as b')
    .leftJoin('streams as s1', 's1.id', 'b.default_sending_stream_id')
    .leftJoin('streams as s2', 's2.id', 'b.default_events_register_stream_id')
    .select(['b.user_id', 's1.name as sending', 's2.name as events', 'b.default_all_public_streams'])
    .where('b.user_id', 'in', botIds)
    .execute();
  const services = await botServices(tx, botIds);
  for (const [id, list] of services) out.set(id, { ...NO_BOT_CONFIG, services: list });
  for (const r of rows) {
    out.set(r.user_id, { services: services.get(r.user_id), default_sending_stream: r.sending ?? null, default_events_register_stream: r.events ?? null, default_all_public_streams: r.default_all_public_streams === 1 });
  }
  return out;
}

/** Whether the user may change the bot: its owner or an organization administrator. */
export function canAdministerBot(user: Pick<User, 'id' | 'role'>, bot: Pick<User, 'bot_owner_id'>): boolean {
  return user.role <= Role.ADMINISTRATOR || bot.bot_owner_id === user.id;
}

/** A bot of the realm the caller may administer (deactivated ones only with allowDeactivated); else "No such bot". */
export async function accessBot(tx: Tx, realm: Realm, user: User, botId: number, opts: { allowDeactivated?: boolean } = {}): Promise<User> {
  const bot = await tx.selectFrom('users').selectAll().where('id', '=', botId).where('realm_id', '=', realm.id).where('is_bot', '=', 1).executeTakeFirst();
  if (!bot || (!bot.is_active && !opts.allowDeactivated)) throw badRequest('No such bot');
  if (!canAdministerBot(user, bot)) throw badRequest('Insufficient permission');
  // System bots (the notification and email-gateway bots) belong to the server, not to anyone.
  if (await isSystemBot(tx, bot.id)) throw badRequest('Insufficient permission');
  return bot;
}

export async function isSystemBot(tx: Tx, userId: number): Promise<boolean> {
  return !!(await tx.selectFrom('realm_system_bots').select('user_id').where('user_id', '=', userId).executeTakeFirst());
}

/** Active bots the user may administer (all for administrators, else their own), by ID. */
export async function administrableBots(tx: Tx, realm: Realm, user: User): Promise<User[]> {
  let q = tx.selectFrom('users').selectAll().where('realm_id', '=', realm.id).where('is_bot', '=', 1).where('is_active', '=', 1);
  if (user.role > Role.ADMINISTRATOR) q = q.where('bot_owner_id', '=', user.id);
  return q.orderBy('id').execute();
}

/** Owners of a bot and the organization's administrators: who keeps it in realm_bots. */
export async function botAdminAudience(tx: Tx, realmId: number, ownerId: number | null): Promise<number[]> {
  const admins = await tx.selectFrom('users').select('id').where('realm_id', '=', realmId).where('is_active', '=', 1).where('role', '<=', Role.ADMINISTRATOR).execute();
  const ids = admins.map((a) => a.id);
  if (ownerId !== null) ids.push(ownerId);
  return [...new Set(ids)];
}
