// Creating people and bots: rows, system-group membership, default channels, and the events.
import { announceSignup } from './announcements.js';
import type { AppContext } from '../context.js';
import type { Transaction } from 'kysely';
import type { DB, Realm, User } from '../store/schema.js';
import { ApiError } from '../core/api-error.js';
import { directSystemGroupsForRole } from '../models/system-groups.js';
import { systemGroupIds } from '../lib/groups.js';
import { hashPassword, newApiKey } from '../lib/secrets.js';
import { pickStreamColor } from '../lib/streams-create.js';
import { streamPeerAudience } from '../lib/streams/access.js';
import { apiEmailFor, canSeeDeliveryEmail, realmHostName, userByEmail } from '../lib/users.js';
import { realmSettings } from '../lib/realm-settings.js';
import { realmUserDefaultOverrides, startingSettings } from '../lib/realm-user-defaults.js';
import { presentUser } from '../presenters/user.js';
import { unknownUser } from '../models/unknown-user.js';
import { viewersWithoutAccess } from '../lib/user-access.js';
import { writeWithEvents, type Outgoing } from '../events/publish.js';
import type { Dialect } from '../store/dialect.js';
import { lockStreams, nextMessageId } from '../lib/messages/unread.js';
import { defaultAvatarSource } from '../lib/avatars.js';

export interface NewUserInput {
  email: string;
  fullName: string;
  /** An argon2id hash from hashPassword(), computed before the transaction (hashing is slow). */
  passwordHash: string | null;
  role: number;
  isBot?: boolean;
  botType?: number | null;
  botOwnerId?: number | null;
  timezone?: string;
  /** Bots' addresses (`name-bot@realm host`) may lack a dotted domain; skip the format check. */
  trustedEmail?: boolean;
  /** The organization's host: with it, a person gets the organization's email_address_visibility default. */
  host?: string;
  /** Channels to subscribe to instead of the organization's defaults (invitations choose them, guests included). */
  streamIds?: number[];
  /** API-created accounts: date_joined moves to the first login (migration 008). */
  firstLoginPending?: boolean;
}

const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function checkEmail(email: string): string {
  const e = email.trim();
  if (!EMAIL_RE.test(e) || e.length > 254) throw new ApiError(`Invalid email '${email}'`, 'BAD_REQUEST', 400);
  return e;
}

export function checkFullName(name: string): string {
  const n = name.trim();
  if (!n) throw new ApiError('Name too short!', 'BAD_REQUEST', 400);
  if (n.length > 100) throw new ApiError('Name too long!', 'BAD_REQUEST', 400);
  if (/[\u0000-\u001f*`\\>"@]/.test(n) && /[\u0000-\u001f]/.test(n)) throw new ApiError('Invalid characters in name!', 'BAD_REQUEST', 400);
  return n;
}

/** Inserts a user with group memberships and default-channel subscriptions; returns events to send. */
export async function insertUser(tx: Transaction<DB>, dialect: Dialect, realm: Realm, input: NewUserInput, now: number): Promise<{ user: User; events: Outgoing[] }> {
  const email = input.trustedEmail ? input.email.trim() : checkEmail(input.email);
  if (await userByEmail(tx, realm.id, email)) throw new ApiError(`Email '${email}' already in use`, 'BAD_REQUEST', 400);
  const user = await tx
    .insertInto('users')
    .values({
      realm_id: realm.id,
      email,
      delivery_email: email,
      email_key: email.toLowerCase(),
      full_name: checkFullName(input.fullName),
      password_hash: input.passwordHash,
      api_key: newApiKey(),
      role: input.role,
      is_active: 1,
      is_bot: input.isBot ? 1 : 0,
      bot_type: input.isBot ? (input.botType ?? 1) : null,
      bot_owner_id: input.isBot ? (input.botOwnerId ?? null) : null,
      date_joined: now,
      timezone: input.timezone ?? '',
      avatar_source: defaultAvatarSource(realm),
      avatar_version: 1,
      is_imported_stub: 0,
      first_login_pending: input.firstLoginPending ? 1 : 0,
      is_deleted: 0,
      settings: JSON.stringify(await startingSettings(tx, realm.id)),
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  await applyDefaultEmailVisibility(tx, realm, user, input);

  const groups = await systemGroupIds(tx, realm.id);
  const memberships = directSystemGroupsForRole(input.role).map((g) => ({ group_id: groups[g], user_id: user.id }));
  if (memberships.length) await tx.insertInto('user_group_members').values(memberships).execute();

  const viewers = await tx.selectFrom('users').select(['id', 'role']).where('realm_id', '=', realm.id).where('is_active', '=', 1).execute();
  const events: Outgoing[] = realmUserAddEvents(user, viewers);
  // Everyone keeps group memberships from register's realm_user_groups, so they learn of the new member.
  for (const m of memberships) {
    events.push({ users: viewers.map((v) => v.id), event: { type: 'user_group', op: 'add_members', group_id: m.group_id, user_ids: [user.id] } });
  }

  // Guests get no default channels: an administrator chooses what they may see.
  if (input.streamIds ? input.streamIds.length > 0 : input.role !== 600 && !input.isBot) {
    const defaults = input.streamIds
      ? await tx.selectFrom('streams').selectAll().where('realm_id', '=', realm.id).where('id', 'in', input.streamIds).where('is_archived', '=', 0).orderBy('id').execute()
      : await tx
          .selectFrom('default_streams')
          .innerJoin('streams', 'streams.id', 'default_streams.stream_id')
          .selectAll('streams')
          .where('default_streams.realm_id', '=', realm.id)
          .where('streams.is_archived', '=', 0)
          .execute();
    let n = 0;
    // A new member has no unread history: floors start after every message so far.
    await lockStreams(tx, dialect, defaults.map((s) => s.id), 'update');
    const floor = await nextMessageId(tx);
    for (const s of defaults) {
      const audience = await streamPeerAudience(tx, s);
      await tx.insertInto('subscriptions').values({ user_id: user.id, stream_id: s.id, active: 1, is_muted: 0, pin_to_top: 0, color: pickStreamColor(n++), unread_floor: floor }).execute();
      events.push({ users: audience.filter((id) => id !== user.id), event: { type: 'subscription', op: 'peer_add', stream_ids: [s.id], user_ids: [user.id] } });
    }
  }
  await hideFromRestrictedViewers(tx, realm, user, events);
  return { user, events };
}

/**
 * Restricted viewers who may not access the new user (known only once its channels are joined)
 * get no realm_user add with user_list_incomplete, and the "Unknown user" placeholder without it.
 */
async function hideFromRestrictedViewers(tx: Transaction<DB>, realm: Realm, user: User, events: Outgoing[]): Promise<void> {
  if (user.is_bot) return;
  const adds = events.filter((e) => e.event.type === 'realm_user' && e.event.op === 'add');
  const hidden = await viewersWithoutAccess(tx, realm, user.id, adds.flatMap((e) => e.users));
  if (!hidden.size) return;
  for (const e of adds) e.users = e.users.filter((id) => !hidden.has(id));
  events.splice(adds.length, 0, { users: [...hidden], event: { type: 'realm_user', op: 'add', person: unknownUser(user.id) }, unlessCapability: 'user_list_incomplete' });
}

/** New people start with the organization's email_address_visibility; hidden addresses get the dummy API email. */
async function applyDefaultEmailVisibility(tx: Transaction<DB>, realm: Realm, user: User, input: NewUserInput): Promise<void> {
  const visibility = (await realmUserDefaultOverrides(tx, realm.id)).email_address_visibility ?? realmSettings(realm).email_address_visibility;
  if (input.isBot || !input.host || typeof visibility !== 'number' || visibility === 1) return;
  user.settings = JSON.stringify({ ...(JSON.parse(user.settings) as object), email_address_visibility: visibility });
  user.email = apiEmailFor(user, input.host);
  await tx.updateTable('users').set({ settings: user.settings, email: user.email }).where('id', '=', user.id).execute();
}

export async function doCreateUser(app: AppContext, realm: Realm, input: Omit<NewUserInput, 'passwordHash'> & { password: string | null }): Promise<User> {
  const passwordHash = input.password ? await hashPassword(input.password) : null;
  const host = input.host ?? realmHostName(app.config.externalUrl, realm);
  const { result } = await writeWithEvents(app, realm.id, (tx) => insertUser(tx, app.store.dialect, realm, { ...input, host, passwordHash }, app.clock.now()), (r) => r.events);
  await announceSignup(app, realm, result.user);
  return result.user;
}

/** realm_user add: one event for viewers who may see the real email, one for those who may not. */
export function realmUserAddEvents(user: User, viewers: { id: number; role: number }[]): Outgoing[] {
  const see: number[] = [];
  const hide: number[] = [];
  for (const v of viewers) (canSeeDeliveryEmail(v, user) ? see : hide).push(v.id);
  const person = (visible: boolean) => presentUser(user, { clientGravatar: false, canSeeDeliveryEmail: visible });
  return [
    { users: see, event: { type: 'realm_user', op: 'add', person: person(true) } },
    { users: hide, event: { type: 'realm_user', op: 'add', person: person(false) } },
  ];
}
