// Accepting an invitation: the account with the invited role, channels and groups, then the welcome and referrer messages.
import { announceSignup } from './announcements.js';
import type { AppContext } from '../context.js';
import type { Realm, User } from '../store/schema.js';
import type { Tx } from '../store/store.js';
import { badRequest } from '../core/api-error.js';
import { hashPassword } from '../lib/secrets.js';
import { realmHostName } from '../lib/users.js';
import { realmSettings } from '../lib/realm-settings.js';
import { INVITE_ACCEPTED, INVITE_PENDING, inviteKeyHash } from '../lib/invitations.js';
import { insertUser } from './users.js';
import { MIN_PASSWORD_LENGTH, passwordTooLong } from './account.js';
import { doSendMessage } from './messages-send.js';
import { systemBot } from './system-bots.js';
import { writeWithEvents, to, type Outgoing } from '../events/publish.js';

/** Loads a usable invitation by its key, or refuses it (unknown, used, revoked, expired). */
async function usableInvitation(tx: Tx, realmId: number, key: string, now: number) {
  const row = await tx.selectFrom('invitations').selectAll().where('key_hash', '=', inviteKeyHash(key)).where('realm_id', '=', realmId).executeTakeFirst();
  if (!row) throw badRequest('Invalid invitation link');
  if (row.status === INVITE_ACCEPTED) throw badRequest('This invitation has already been used');
  if (row.status !== INVITE_PENDING) throw badRequest('This invitation has been revoked');
  if (row.expires_at !== null && row.expires_at <= now) throw badRequest('This invitation has expired');
  return row;
}

/** What an invitation link shows before sign-up: the address and organization it is for. */
export async function inviteDetails(app: AppContext, realm: Realm, key: string): Promise<Record<string, unknown>> {
  const row = await app.store.read((tx) => usableInvitation(tx, realm.id, key, app.clock.now()));
  return { email: row.email, realm_name: realm.name, invited_as: row.invited_as, expiry_date: row.expires_at };
}

/**
 * Creates the invited account, or, when the address is an imported stub account's, sets that
 * account's password; the key works once. Returns the user.
 */
export async function doAcceptInvite(app: AppContext, realm: Realm, key: string, fullName: string, password: string): Promise<User> {
  if ([...password].length < MIN_PASSWORD_LENGTH) throw badRequest('The password is too weak.');
  if (passwordTooLong(password)) throw badRequest('Password is too long.');
  // Refuse a bad key before spending time on hashing.
  await app.store.read((tx) => usableInvitation(tx, realm.id, key, app.clock.now()));
  const passwordHash = await hashPassword(password);
  const now = app.clock.now();
  const { result } = await writeWithEvents(
    app,
    realm.id,
    async (tx) => {
      const inv = await usableInvitation(tx, realm.id, key, now);
      // The conditional update makes the key single-use even when two sign-ups race.
      const claimed = await tx.updateTable('invitations').set({ status: INVITE_ACCEPTED }).where('id', '=', inv.id).where('status', '=', INVITE_PENDING).executeTakeFirst();
      if (Number(claimed.numUpdatedRows) !== 1) throw badRequest('This invitation has already been used');
      const stub = await importedStub(tx, realm.id, inv.email);
      if (stub) {
        // The person claims the account the import made for them: its history, name, role and
        // channels stay; the first login (doRecordLogin) ends the stub with its realm_user updates.
        await tx.updateTable('users').set({ password_hash: passwordHash }).where('id', '=', stub.id).execute();
        await tx.updateTable('invitations').set({ accepted_user_id: stub.id }).where('id', '=', inv.id).execute();
        return { user: { ...stub, password_hash: passwordHash }, inv, events: [] as Outgoing[], claimed: true };
      }
      const streamIds = new Set(JSON.parse(inv.stream_ids) as number[]);
      if (inv.include_realm_default_subscriptions) {
        for (const d of await tx.selectFrom('default_streams').select('stream_id').where('realm_id', '=', realm.id).execute()) streamIds.add(d.stream_id);
      }
      const { user, events } = await insertUser(
        tx,
        app.store.dialect,
        realm,
        { email: inv.email, fullName, passwordHash, role: inv.invited_as, host: realmHostName(app.config.externalUrl, realm), streamIds: [...streamIds] },
        now,
      );
      await tx.updateTable('invitations').set({ accepted_user_id: user.id }).where('id', '=', inv.id).execute();
      events.push(...(await addToGroups(tx, realm.id, user.id, JSON.parse(inv.group_ids) as number[])));
      return { user, inv, events, claimed: false };
    },
    (r) => r.events,
  );
  const { user, inv } = result;
  if (result.claimed) app.caches.userChanged(user.id);

  const custom = inv.welcome_message_custom_text ?? (realmSettings(realm).welcome_message_custom_text as string | undefined) ?? '';
  const dm = (content: string, recipient: number, sender: User) =>
    doSendMessage(app, realm, sender, { kind: 'private', dmTo: [recipient], content, readBySender: true, clientName: 'Internal' });
  // A claimed stub is not new to the organization: no welcome, but the referrer still hears of it.
  if (!result.claimed) {
    const welcomeBot = await systemBot(app, realm, 'welcome');
    await dm(`Welcome to ${realm.name}, @_**${user.full_name}|${user.id}**! This is a direct message from the Welcome Bot.`, user.id, welcomeBot);
    // An empty custom text means no custom message at all.
    if (custom.trim()) await dm(custom, user.id, welcomeBot);
  }
  if (inv.notify_referrer_on_join) {
    const referrer = await app.store.db.selectFrom('users').selectAll().where('id', '=', inv.invited_by_id).where('is_active', '=', 1).executeTakeFirst();
    if (referrer) await dm(`@_**${user.full_name}|${user.id}** accepted your invitation to join ${realm.name}!`, referrer.id, await systemBot(app, realm, 'notification'));
  }
  await announceSignup(app, realm, user);
  return user;
}

/** The active imported stub account with this address, if any (an invitation to it claims it). */
async function importedStub(tx: Tx, realmId: number, email: string): Promise<User | undefined> {
  return tx.selectFrom('users').selectAll().where('realm_id', '=', realmId).where('email_key', '=', email.toLowerCase()).where('is_active', '=', 1).where('is_imported_stub', '=', 1).executeTakeFirst();
}

/** Adds the new user to the invitation's groups that still exist and are active. */
async function addToGroups(tx: Tx, realmId: number, userId: number, ids: number[]): Promise<Outgoing[]> {
  if (!ids.length) return [];
  const groups = await tx.selectFrom('user_groups').select('id').where('realm_id', '=', realmId).where('id', 'in', ids).where('is_system_group', '=', 0).where('deactivated', '=', 0).orderBy('id').execute();
  if (!groups.length) return [];
  await tx.insertInto('user_group_members').values(groups.map((g) => ({ group_id: g.id, user_id: userId }))).execute();
  const viewers = (await tx.selectFrom('users').select('id').where('realm_id', '=', realmId).where('is_active', '=', 1).execute()).map((u) => u.id);
  return groups.map((g) => to(viewers, { type: 'user_group', op: 'add_members', group_id: g.id, user_ids: [userId] }));
}
