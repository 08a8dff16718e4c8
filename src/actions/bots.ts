// Creating bots (POST /bots): name and type checks, the bot's user row, and realm_bot add.
import type { AppContext } from '../context.js';
import type { Realm, User } from '../store/schema.js';
import { badRequest } from '../core/api-error.js';
import { BOT_TYPES, BotType, Role } from '../models/roles.js';
import { hasRealmPermission } from '../lib/groups.js';
import { writeWithEvents, to } from '../events/publish.js';
import { checkFullName, insertUser } from './users.js';
import { presentBot } from '../presenters/bot.js';
import { realmHostName } from '../lib/users.js';
import { newApiKey } from '../lib/secrets.js';
import { NO_BOT_CONFIG } from '../lib/bots.js';
import { botServicesChanged, serviceDict, type ServiceInput } from '../lib/outgoing-webhooks.js';

export interface NewBotInput {
  fullName: string;
  shortName: string;
  botType: number;
  /** An outgoing-webhook bot's URL and interface. */
  service?: ServiceInput;
}

/** The organization's host name, which bots' addresses use as their domain. */
export function realmHost(app: AppContext, realm: Realm): string {
  return realmHostName(app.config.externalUrl, realm);
}

export async function doCreateBot(app: AppContext, realm: Realm, owner: User, input: NewBotInput): Promise<User> {
  if (!BOT_TYPES.includes(input.botType)) throw badRequest('Invalid bot type');
  const shortName = input.shortName.trim();
  if (!shortName || !/^[\w.+-]+$/.test(shortName)) throw badRequest('Bad name or username');
  const fullName = checkFullName(input.fullName);
  const email = `${shortName}-bot@${realmHost(app, realm)}`.toLowerCase();
  const now = app.clock.now();
  const { result } = await writeWithEvents(
    app,
    realm.id,
    async (tx) => {
      // Incoming-webhook bots need only the narrower write-only permission.
      const allowed =
        (await hasRealmPermission(tx, owner, realm, 'can_create_bots_group')) ||
        (input.botType === BotType.INCOMING_WEBHOOK && (await hasRealmPermission(tx, owner, realm, 'can_create_write_only_bots_group')));
      if (!allowed) throw badRequest('Insufficient permission');
      const taken = await tx.selectFrom('users').select('id').where('realm_id', '=', realm.id).where('email_key', '=', email).executeTakeFirst();
      if (taken) throw badRequest('Username already in use');
      const sameName = await tx
        .selectFrom('users')
        .select('id')
        .where('realm_id', '=', realm.id)
        .where('is_bot', '=', 1)
        .where('is_active', '=', 1)
        .where('full_name', '=', fullName)
        .executeTakeFirst();
      if (sameName) throw badRequest('Name is already in use!');
      const { user, events } = await insertUser(
        tx,
        app.store.dialect,
        realm,
        { email, fullName, passwordHash: null, role: Role.MEMBER, isBot: true, botType: input.botType, botOwnerId: owner.id, trustedEmail: true },
        now,
      );
      const admins = await tx.selectFrom('users').select('id').where('realm_id', '=', realm.id).where('is_active', '=', 1).where('role', '<=', Role.ADMINISTRATOR).execute();
      let services: ReturnType<typeof serviceDict>[] = [];
      if (input.service) {
        // The token the payloads carry, for the bot's server to check that a call comes from here.
        const row = { bot_id: user.id, base_url: input.service.payloadUrl, interface: input.service.interfaceType, token: newApiKey() };
        await tx.insertInto('bot_services').values(row).execute();
        services = [serviceDict(row)];
      }
      events.push(to([owner.id, ...admins.map((a) => a.id)], { type: 'realm_bot', op: 'add', bot: presentBot(user, { ...NO_BOT_CONFIG, services }) }));
      return { user, events };
    },
    (r) => r.events,
  );
  if (input.service) botServicesChanged(app, realm.id);
  return result.user;
}
