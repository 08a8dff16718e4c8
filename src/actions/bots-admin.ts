// Administering bots: PATCH /bots/{id} (name, owner, default channels, role), deactivation and new API keys.
import type { AppContext } from '../context.js';
import type { Realm, User } from '../store/schema.js';
import type { Tx } from '../store/store.js';
import { badRequest } from '../core/api-error.js';
import { newApiKey } from '../lib/secrets.js';
import { accessStreamByName, streamPeerAudience } from '../lib/streams/access.js';
import { accessBot, botAdminAudience, botConfigs, NO_BOT_CONFIG } from '../lib/bots.js';
import { presentBot } from '../presenters/bot.js';
import { writeWithEvents, to, type Outgoing } from '../events/publish.js';
import { checkFullName } from './users.js';
import { doUpdateUser, mustBeAdmin, mustBeOwner } from './user-admin.js';
import { Role, isAdminRole } from '../models/roles.js';
import { setUserActive } from './user-active.js';

export interface BotChanges {
  fullName?: string;
  ownerId?: number;
  /** A channel name; '' or null clears it. */
  defaultSendingStream?: string | null;
  defaultEventsRegisterStream?: string | null;
  defaultAllPublicStreams?: boolean;
  role?: number;
}

const activeIds = async (tx: Tx, realmId: number) =>
  (await tx.selectFrom('users').select('id').where('realm_id', '=', realmId).where('is_active', '=', 1).execute()).map((u) => u.id);

/** A default channel the caller can see, by name; null clears. */
async function channelId(tx: Tx, actor: User, name: string | null | undefined): Promise<number | null | undefined> {
  if (name === undefined) return undefined;
  if (name === null || name === '') return null;
  return (await accessStreamByName(tx, actor, name)).stream.id;
}

export async function doUpdateBot(app: AppContext, realm: Realm, actor: User, botId: number, c: BotChanges): Promise<void> {
  const { result } = await writeWithEvents(app, realm.id, async (tx) => {
    const bot = await accessBot(tx, realm, actor, botId);
    // The role is changed after this commits: its refusals come first, so a refused request changes nothing.
    if (c.role !== undefined) {
      if (!isAdminRole(actor.role)) throw mustBeAdmin();
      if (c.role !== bot.role && (c.role === Role.OWNER || bot.role === Role.OWNER) && actor.role !== Role.OWNER) throw mustBeOwner();
    }
    const events: Outgoing[] = [];
    const everyone = await activeIds(tx, realm.id);
    const set: Partial<User> = {};
    if (c.fullName !== undefined) {
      const name = checkFullName(c.fullName);
      if (name !== bot.full_name) {
        const taken = await tx.selectFrom('users').select('id').where('realm_id', '=', realm.id).where('is_bot', '=', 1).where('is_active', '=', 1).where('full_name', '=', name).executeTakeFirst();
        if (taken) throw badRequest('Name is already in use!');
        set.full_name = name;
        events.push(to(everyone, { type: 'realm_user', op: 'update', person: { user_id: bot.id, full_name: name } }));
      }
    }
    const oldAudience = await botAdminAudience(tx, realm.id, bot.bot_owner_id);
    if (c.ownerId !== undefined && c.ownerId !== bot.bot_owner_id) {
      const owner = await tx.selectFrom('users').selectAll().where('id', '=', c.ownerId).where('realm_id', '=', realm.id).executeTakeFirst();
      if (!owner) throw badRequest('Failed to change owner, no such user');
      if (!owner.is_active) throw badRequest('Failed to change owner, user is deactivated');
      if (owner.is_bot) throw badRequest("Failed to change owner, bots can't own other bots");
      set.bot_owner_id = owner.id;
      events.push(to(everyone, { type: 'realm_user', op: 'update', person: { user_id: bot.id, bot_owner_id: owner.id } }));
    }
    if (Object.keys(set).length) await tx.updateTable('users').set(set).where('id', '=', bot.id).execute();

    const before = (await botConfigs(tx, [bot.id])).get(bot.id) ?? NO_BOT_CONFIG;
    const sending = await channelId(tx, actor, c.defaultSendingStream);
    const register = await channelId(tx, actor, c.defaultEventsRegisterStream);
    if (sending !== undefined || register !== undefined || c.defaultAllPublicStreams !== undefined) {
      const row = await tx.selectFrom('bot_settings').selectAll().where('user_id', '=', bot.id).executeTakeFirst();
      const next = {
        default_sending_stream_id: sending !== undefined ? sending : (row?.default_sending_stream_id ?? null),
        default_events_register_stream_id: register !== undefined ? register : (row?.default_events_register_stream_id ?? null),
        default_all_public_streams: c.defaultAllPublicStreams !== undefined ? (c.defaultAllPublicStreams ? 1 : 0) : (row?.default_all_public_streams ?? 0),
      };
      if (row) await tx.updateTable('bot_settings').set(next).where('user_id', '=', bot.id).execute();
      else await tx.insertInto('bot_settings').values({ user_id: bot.id, ...next }).execute();
    }
    const after = (await botConfigs(tx, [bot.id])).get(bot.id) ?? NO_BOT_CONFIG;
    const newAudience = await botAdminAudience(tx, realm.id, set.bot_owner_id ?? bot.bot_owner_id);
    // realm_bots follows who may administer the bot: the old owner loses it, the new one gains it.
    const lost = oldAudience.filter((id) => !newAudience.includes(id));
    const gained = newAudience.filter((id) => !oldAudience.includes(id));
    events.push(to(lost, { type: 'realm_bot', op: 'delete', bot: { user_id: bot.id } }));
    events.push(to(gained, { type: 'realm_bot', op: 'add', bot: presentBot(bot, after) }));
    const keep = newAudience.filter((id) => oldAudience.includes(id));
    for (const key of ['default_sending_stream', 'default_events_register_stream', 'default_all_public_streams'] as const) {
      if (before[key] !== after[key]) events.push(to(keep, { type: 'realm_bot', op: 'update', bot: { user_id: bot.id, [key]: after[key] } }));
    }
    return { events, changed: Object.keys(set).length > 0 };
  }, (result) => result.events);
  if (result.changed) app.caches.userChanged(botId);
  // A role is a user change like any other (system groups, events): administrators only, as for people.
  if (c.role !== undefined) await doUpdateUser(app, realm, actor, (tx) => accessBot(tx, realm, actor, botId), { role: c.role });
}

/** DELETE /bots/{id}: deactivates the bot; it leaves subscriber lists and administrators' realm_bots. */
export async function doDeactivateBot(app: AppContext, realm: Realm, actor: User, botId: number): Promise<void> {
  await writeWithEvents(app, realm.id, async (tx) => {
    const bot = await accessBot(tx, realm, actor, botId);
    await setUserActive(tx, bot.id, false);
    const events: Outgoing[] = [];
    const subs = await tx.selectFrom('subscriptions').innerJoin('streams', 'streams.id', 'subscriptions.stream_id').selectAll('streams').where('subscriptions.user_id', '=', bot.id).where('subscriptions.active', '=', 1).execute();
    for (const s of subs) {
      const audience = (await streamPeerAudience(tx, s)).filter((id) => id !== bot.id);
      events.push(to(audience, { type: 'subscription', op: 'peer_remove', stream_ids: [s.id], user_ids: [bot.id] }));
    }
    events.push(to(await activeIds(tx, realm.id), { type: 'realm_user', op: 'update', person: { user_id: bot.id, is_active: false } }));
    events.push(to(await botAdminAudience(tx, realm.id, bot.bot_owner_id), { type: 'realm_bot', op: 'remove', bot: { user_id: bot.id, full_name: bot.full_name } }));
    return events;
  }, (result) => result);
  app.caches.userChanged(botId);
}

/** A new API key for the bot; the old one stops working at once on every node. */
export async function doRegenerateBotApiKey(app: AppContext, realm: Realm, actor: User, botId: number): Promise<string> {
  const { result } = await app.store.write(async (tx) => {
    const bot = await accessBot(tx, realm, actor, botId);
    const key = newApiKey();
    await tx.updateTable('users').set({ api_key: key }).where('id', '=', bot.id).execute();
    return key;
  });
  app.caches.userChanged(botId);
  return result;
}


