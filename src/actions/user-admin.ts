// Administrators editing another user (PATCH /users/{id}): name, role, API email, custom profile fields.
import type { AppContext } from '../context.js';
import type { Realm, User } from '../store/schema.js';
import type { Tx } from '../store/store.js';
import { badRequest } from '../core/api-error.js';
import { Role, isAdminRole } from '../models/roles.js';
import { directSystemGroupsForRole } from '../models/system-groups.js';
import { systemGroupIds } from '../lib/groups.js';
import { accessibleUserIds, apiEmailFor, canSeeDeliveryEmail, realmHostName, userByEmail } from '../lib/users.js';
import { checkProfileData, storeProfileData, type CheckedValue, type ProfileDataUpdate } from '../lib/profile-fields.js';
import { canSeeStreamWithoutSubscription, subscriberIds } from '../lib/streams/access.js';
import { streamDicts } from '../lib/streams/dicts.js';
import { presentBot } from '../presenters/bot.js';
import { avatarPerson } from '../presenters/avatar.js';
import { isoDate } from '../presenters/user.js';
import { accessDiffEvents, dropInaccessibleRecipients } from '../lib/user-access.js';
import { defaultStreamIds } from '../lib/streams/administer.js';
import { checkEmail, checkFullName } from './users.js';
import { publishCommitted, to, type Outgoing } from '../events/publish.js';

export interface UserChanges {
  fullName?: string;
  role?: number;
  newEmail?: string;
  profileData?: ProfileDataUpdate[];
}

export const mustBeAdmin = () => badRequest('Must be an organization administrator');
export const mustBeOwner = () => badRequest('Must be an organization owner');

/** Whether the user is the organization's only active owner. */
export async function isOnlyOwner(tx: Tx, user: Pick<User, 'id' | 'realm_id' | 'role'>): Promise<boolean> {
  if (user.role !== Role.OWNER) return false;
  const other = await tx
    .selectFrom('users')
    .select('id')
    .where('realm_id', '=', user.realm_id)
    .where('role', '=', Role.OWNER)
    .where('is_active', '=', 1)
    .where('is_bot', '=', 0)
    .where('id', '!=', user.id)
    .executeTakeFirst();
  return !other;
}

const viewersOf = (tx: Tx, realmId: number) => tx.selectFrom('users').selectAll().where('realm_id', '=', realmId).where('is_active', '=', 1).execute();

/**
 * Applies an administrator's changes to a user found by `find` (by ID or email). Everything is
 * checked before anything is written, in one transaction; unchanged values send no event.
 */
export async function doUpdateUser(app: AppContext, realm: Realm, actor: User, find: (tx: Tx) => Promise<User | undefined>, changes: UserChanges): Promise<void> {
  if (!isAdminRole(actor.role)) throw mustBeAdmin();
  const { result, stamp } = await app.store.write(async (tx) => {
    const target = await find(tx);
    if (!target) throw badRequest('No such user');
    const set: Partial<User> = {};
    const events: Outgoing[] = [];
    const viewers = await viewersOf(tx, realm.id);
    const everyone = viewers.map((v) => v.id);

    if (changes.role !== undefined && changes.role !== target.role) {
      if (target.role === Role.OWNER && (await isOnlyOwner(tx, target))) throw badRequest('The owner permission cannot be removed from the only organization owner.');
      if ((changes.role === Role.OWNER || target.role === Role.OWNER) && actor.role !== Role.OWNER) throw mustBeOwner();
      set.role = changes.role;
    }
    if (changes.fullName !== undefined) {
      const name = checkFullName(changes.fullName);
      if (name !== target.full_name) set.full_name = name;
    }
    if (changes.newEmail !== undefined) {
      if (actor.role !== Role.OWNER || !actor.can_change_user_emails) throw badRequest('User not authorized to change user emails');
      const email = checkEmail(changes.newEmail);
      const taken = await userByEmail(tx, realm.id, email);
      if (taken && taken.id !== target.id) throw badRequest(`Email '${email}' already in use`);
      if (email !== target.delivery_email) {
        set.delivery_email = email;
        set.email_key = email.toLowerCase();
        set.email = apiEmailFor({ ...target, delivery_email: email }, realmHostName(app.config.externalUrl, realm));
      }
    }
    const profile = changes.profileData ? await checkProfileData(tx, realm.id, target, changes.profileData) : [];
    // Whom the user may access (can_access_all_users_group) can follow their role: taken before it changes.
    const accessBefore = set.role !== undefined && target.is_active ? await accessibleUserIds(tx, realm, target) : undefined;

    if (Object.keys(set).length) await tx.updateTable('users').set(set).where('id', '=', target.id).execute();
    const after: User = { ...target, ...set };
    if (set.full_name !== undefined) events.push(to(everyone, { type: 'realm_user', op: 'update', person: { user_id: target.id, full_name: after.full_name } }));
    if (set.role !== undefined) events.push(...(await roleChangeEvents(tx, realm, target, after, viewers, target.is_active === 1)));
    // First, and by concat: a guest made a member may gain more users than a call may take as arguments.
    const own = accessBefore !== undefined ? await ownAccessEvents(tx, realm, after, accessBefore) : [];
    if (set.delivery_email !== undefined) events.push(...emailEvents(target, after, viewers));
    if (profile.length) {
      await storeProfileData(tx, target.id, profile);
      events.push(...profileFieldEvents(target.id, profile, everyone));
    }
    // Restricted users (can_access_all_users_group) hear nothing about a user they may not access.
    const all = own.concat(events);
    await dropInaccessibleRecipients(tx, realm, all);
    return { changed: Object.keys(set).length > 0, userId: target.id, events: all };
  });
  publishCommitted(app, realm.id, stamp, result.events);
  if (result.changed) app.caches.userChanged(result.userId);
}

/** The role update, system-group moves, and what the user themself gains or loses sight of. */
async function roleChangeEvents(tx: Tx, realm: Realm, before: User, after: User, viewers: User[], active: boolean): Promise<Outgoing[]> {
  const everyone = viewers.map((v) => v.id);
  const events: Outgoing[] = [to(everyone, { type: 'realm_user', op: 'update', person: { user_id: after.id, role: after.role } })];
  const groups = await systemGroupIds(tx, realm.id);
  const oldGroups = new Set(directSystemGroupsForRole(before.role).map((g) => groups[g]));
  const newGroups = new Set(directSystemGroupsForRole(after.role).map((g) => groups[g]));
  const removed = [...oldGroups].filter((g) => !newGroups.has(g));
  const added = [...newGroups].filter((g) => !oldGroups.has(g));
  if (removed.length) await tx.deleteFrom('user_group_members').where('user_id', '=', after.id).where('group_id', 'in', removed).execute();
  if (added.length) await tx.insertInto('user_group_members').values(added.map((g) => ({ group_id: g, user_id: after.id }))).execute();
  if (!active) return events;
  for (const g of removed) events.push(to(everyone, { type: 'user_group', op: 'remove_members', group_id: g, user_ids: [after.id] }));
  for (const g of added) events.push(to(everyone, { type: 'user_group', op: 'add_members', group_id: g, user_ids: [after.id] }));

  // Real addresses the user may now see or no longer sees.
  for (const other of viewers) {
    if (other.id === after.id) continue;
    const was = canSeeDeliveryEmail(before, other);
    const is = canSeeDeliveryEmail(after, other);
    if (was !== is) events.push(to([after.id], { type: 'realm_user', op: 'update', person: { user_id: other.id, delivery_email: is ? other.delivery_email : null } }));
  }
  // Administrators keep every bot in realm_bots; others only their own.
  if (isAdminRole(before.role) !== isAdminRole(after.role)) {
    const bots = await tx.selectFrom('users').select('id').where('realm_id', '=', realm.id).where('is_bot', '=', 1).where('is_active', '=', 1).where((eb) => eb.or([eb('bot_owner_id', 'is', null), eb('bot_owner_id', '!=', after.id)])).orderBy('id').execute();
    for (const b of bots) events.push(to([after.id], isAdminRole(after.role) ? { type: 'realm_bot', op: 'add', bot: presentBot(b) } : { type: 'realm_bot', op: 'delete', bot: { user_id: b.id } }));
  }
  // Guests are told of no default channels (lib/state/channel-admin.ts): the list comes or goes with the role.
  if ((before.role === Role.GUEST) !== (after.role === Role.GUEST)) {
    events.push(to([after.id], { type: 'default_streams', default_streams: after.role === Role.GUEST ? [] : await defaultStreamIds(tx, realm.id) }));
  }
  events.push(...(await channelSightEvents(tx, realm, before, after)));
  return events;
}

/**
 * Channels the user is not subscribed to that a role change shows or hides (guests see no public
 * channel without a subscription; administrators see private ones): stream create with the
 * subscribers as peer_add (so counts add up from zero), or stream delete.
 */
async function channelSightEvents(tx: Tx, realm: Realm, before: User, after: User): Promise<Outgoing[]> {
  const subscribed = new Set((await tx.selectFrom('subscriptions').select('stream_id').where('user_id', '=', after.id).where('active', '=', 1).execute()).map((r) => r.stream_id));
  const streams = (await tx.selectFrom('streams').selectAll().where('realm_id', '=', realm.id).where('is_archived', '=', 0).orderBy('id').execute()).filter((s) => !subscribed.has(s.id));
  const gained = streams.filter((s) => !canSeeStreamWithoutSubscription(before, s) && canSeeStreamWithoutSubscription(after, s));
  const lost = streams.filter((s) => canSeeStreamWithoutSubscription(before, s) && !canSeeStreamWithoutSubscription(after, s)).map((s) => s.id);
  const events: Outgoing[] = [];
  if (lost.length) events.push(to([after.id], { type: 'stream', op: 'delete', streams: lost.map((id) => ({ stream_id: id })), stream_ids: lost }));
  if (gained.length) {
    const dicts = await streamDicts(tx, gained);
    events.push(to([after.id], { type: 'stream', op: 'create', streams: gained.map((s) => ({ ...dicts.get(s.id), subscriber_count: 0 })) }));
    for (const s of gained) {
      const subs = await subscriberIds(tx, s.id);
      if (subs.length) events.push(to([after.id], { type: 'subscription', op: 'peer_add', stream_ids: [s.id], user_ids: subs }));
    }
  }
  return events;
}

/** After a role change, what the user gained and lost access to (lib/user-access.ts, as for a subscription change). */
async function ownAccessEvents(tx: Tx, realm: Realm, after: User, before: Set<number> | null): Promise<Outgoing[]> {
  return accessDiffEvents(tx, realm, after, before, await accessibleUserIds(tx, realm, after)) as Promise<Outgoing[]>;
}

/** new_email to everyone when the API email changed, the real one to those who may see it, a new avatar URL. */
function emailEvents(before: User, after: User, viewers: User[]): Outgoing[] {
  const everyone = viewers.map((v) => v.id);
  const events: Outgoing[] = [];
  if (before.email !== after.email) events.push(to(everyone, { type: 'realm_user', op: 'update', person: { user_id: after.id, new_email: after.email } }));
  events.push(to(viewers.filter((v) => canSeeDeliveryEmail(v, after)).map((v) => v.id), { type: 'realm_user', op: 'update', person: { user_id: after.id, delivery_email: after.delivery_email } }));
  if (after.avatar_source === 'G') events.push(to(everyone, { type: 'realm_user', op: 'update', person: avatarPerson(after) }));
  return events;
}

/** realm_user updates, one per changed field (the spec's custom-profile-field person form). */
function profileFieldEvents(userId: number, values: CheckedValue[], users: number[]): Outgoing[] {
  return values.map((v) =>
    to(users, {
      type: 'realm_user',
      op: 'update',
      person: { user_id: userId, custom_profile_field: { id: v.fieldId, value: v.value, ...(v.rendered !== null ? { rendered_value: v.rendered } : {}) } },
    }),
  );
}

/**
 * A login through the API (password or JWT key fetch). The first login of an API-created or
 * imported account moves date_joined to now and ends the imported stub, with realm_user updates.
 */
export async function doRecordLogin(app: AppContext, realm: Realm, user: User): Promise<User> {
  if (!user.first_login_pending && !user.is_imported_stub) return user;
  const now = app.clock.now();
  const { result, stamp } = await app.store.write(async (tx) => {
    const row = await tx.selectFrom('users').selectAll().where('id', '=', user.id).executeTakeFirstOrThrow();
    if (!row.first_login_pending && !row.is_imported_stub) return { user: row, events: [] as Outgoing[] };
    await tx.updateTable('users').set({ first_login_pending: 0, is_imported_stub: 0, date_joined: now }).where('id', '=', user.id).execute();
    const viewers = (await viewersOf(tx, realm.id)).map((v) => v.id);
    const after: User = { ...row, first_login_pending: 0, is_imported_stub: 0, date_joined: now };
    const events: Outgoing[] = [to(viewers, { type: 'realm_user', op: 'update', person: { user_id: user.id, date_joined: isoDate(now) } })];
    if (row.is_imported_stub) events.unshift(to(viewers, { type: 'realm_user', op: 'update', person: { user_id: user.id, is_imported_stub: false } }));
    return { user: after, events };
  });
  publishCommitted(app, realm.id, stamp, result.events);
  app.caches.userChanged(user.id);
  return result.user;
}
