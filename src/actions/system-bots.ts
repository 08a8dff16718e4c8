// The organization's system bots (notification, welcome, email gateway): no owner, never a login.
import { randomBytes } from 'node:crypto';
import type { AppContext } from '../context.js';
import type { Realm, User } from '../store/schema.js';
import { Role } from '../models/roles.js';
import { presentBot } from '../presenters/bot.js';
import { writeWithEvents, to } from '../events/publish.js';
import { userByEmail } from '../lib/users.js';
import { insertUser } from './users.js';
import { realmHost } from './bots.js';

/** The system bots: kind → address local part and display name. */
const SYSTEM_BOTS = {
  notification: { local: 'notification', name: 'Notification Bot' },
  welcome: { local: 'welcome', name: 'Welcome Bot' },
  'email-gateway': { local: 'emailgateway', name: 'Email Gateway' },
} as const;
export type SystemBotKind = keyof typeof SYSTEM_BOTS;
export const SYSTEM_BOT_KINDS = Object.keys(SYSTEM_BOTS) as SystemBotKind[];

async function findSystemBot(app: AppContext, realmId: number, kind: string): Promise<User | undefined> {
  return app.store.db
    .selectFrom('realm_system_bots as b')
    .innerJoin('users as u', 'u.id', 'b.user_id')
    .selectAll('u')
    .where('b.realm_id', '=', realmId)
    .where('b.kind', '=', kind)
    .executeTakeFirst();
}

/**
 * The notification bot of `realm`. Created lazily so organizations that never use reminders carry
 * no extra user. Its address ends in ".system@", which POST /bots ("<name>-bot@") cannot produce.
 */
export function notificationBot(app: AppContext, realm: Realm): Promise<User> {
  return systemBot(app, realm, 'notification');
}

/** A system bot of `realm` (notification, welcome, email gateway), created on first use. */
export async function systemBot(app: AppContext, realm: Realm, kind: SystemBotKind): Promise<User> {
  const found = await findSystemBot(app, realm.id, kind);
  if (found) return found;
  const { local, name } = SYSTEM_BOTS[kind];
  try {
    const { result } = await writeWithEvents(
      app,
      realm.id,
      async (tx) => {
        let email = `${local}.system@${realmHost(app, realm)}`;
        if (await userByEmail(tx, realm.id, email)) email = `${local}.system.${randomBytes(3).toString('hex')}@${realmHost(app, realm)}`;
        const { user, events } = await insertUser(tx, app.store.dialect, realm, { email, fullName: name, passwordHash: null, role: Role.MEMBER, isBot: true, botType: 1, botOwnerId: null, trustedEmail: true }, app.clock.now());
        await tx.insertInto('realm_system_bots').values({ realm_id: realm.id, kind, user_id: user.id }).execute();
        // Administrators' realm_bots list every bot of the organization, this one included.
        const admins = await tx.selectFrom('users').select('id').where('realm_id', '=', realm.id).where('is_active', '=', 1).where('role', '<=', Role.ADMINISTRATOR).execute();
        events.push(to(admins.map((a) => a.id), { type: 'realm_bot', op: 'add', bot: presentBot(user) }));
        return { user, events };
      },
      (r) => r.events,
    );
    return result.user;
  } catch (err) {
    // Another process created it at the same moment (the primary key on realm_system_bots refused ours).
    const raced = await findSystemBot(app, realm.id, kind);
    if (raced) return raced;
    throw err;
  }
}
