// Who may access whom under can_access_all_users_group, and the realm_user events that keep
// restricted users' user lists right (placeholders, gained and lost access, filtered updates).
import type { Tx } from '../store/store.js';
import type { Realm, User } from '../store/schema.js';
import { SYSTEM_GROUPS, roleInSystemGroup, type SystemGroupName } from '../models/system-groups.js';
import { UNKNOWN_USER_NAME } from '../models/unknown-user.js';
import { presentUser } from '../presenters/user.js';
import { groupMemberIds } from './groups.js';
import { realmSettings } from './realm-settings.js';
import { accessibleUserIds, canSeeDeliveryEmail } from './users.js';
import { realmProfileData, type ProfileData } from './profile-fields.js';
import { isAway, statusDict, type StatusDict } from './user-status.js';

/** An event for some users (the shape actions publish). */
export interface AccessEvent {
  users: number[];
  event: { type: string; [key: string]: unknown };
  unlessCapability?: string;
}

/** Active people outside can_access_all_users_group (bots are never limited); null when the organization limits nobody. */
export async function restrictedUsers(tx: Tx, realm: Realm): Promise<User[] | null> {
  const groupId = realmSettings(realm).can_access_all_users_group;
  if (typeof groupId !== 'number') return null;
  const group = await tx.selectFrom('user_groups').select(['name', 'is_system_group']).where('id', '=', groupId).where('realm_id', '=', realm.id).executeTakeFirst();
  const people = await tx.selectFrom('users').selectAll().where('realm_id', '=', realm.id).where('is_active', '=', 1).where('is_bot', '=', 0).orderBy('id').execute();
  if (group?.is_system_group && group.name && (SYSTEM_GROUPS as readonly string[]).includes(group.name)) {
    return people.filter((u) => !roleInSystemGroup(u.role, group.name as SystemGroupName));
  }
  const members = new Set(group ? await groupMemberIds(tx, groupId) : []);
  return people.filter((u) => !members.has(u.id));
}

/** Each restricted user's accessible set, taken before a change (subscriptions) that may alter it. */
export interface AccessSnapshot {
  viewers: User[];
  access: Map<number, Set<number>>;
}

export async function accessSnapshot(tx: Tx, realm: Realm): Promise<AccessSnapshot | null> {
  const viewers = await restrictedUsers(tx, realm);
  if (!viewers?.length) return null;
  const access = new Map<number, Set<number>>();
  for (const v of viewers) access.set(v.id, (await accessibleUserIds(tx, realm, v)) ?? new Set());
  return { viewers, access };
}

/** After a subscription change: the events each restricted user's gained and lost access calls for (accessDiffEvents). */
export async function accessChangeEvents(tx: Tx, realm: Realm, before: AccessSnapshot | null): Promise<AccessEvent[]> {
  if (!before) return [];
  const out: AccessEvent[] = [];
  for (const viewer of before.viewers) for (const e of await accessDiffEvents(tx, realm, viewer, before.access.get(viewer.id)!, await accessibleUserIds(tx, realm, viewer))) out.push(e);
  return out;
}

/** What realm_user add events are built from, read once per change: users, their profile data and statuses. */
interface People {
  users: Map<number, User>;
  profiles: Map<number, ProfileData>;
  statuses: Map<number, StatusDict>;
}

/** The organization's users (all, or those of `ids`) with their profile data and statuses, in three queries. */
async function peopleOf(tx: Tx, realm: Realm, ids?: number[]): Promise<People> {
  let users = tx.selectFrom('users').selectAll().where('realm_id', '=', realm.id);
  let statuses = tx.selectFrom('user_status').selectAll().where('realm_id', '=', realm.id);
  if (ids) {
    users = users.where('id', 'in', ids.length ? ids : [-1]);
    statuses = statuses.where('user_id', 'in', ids.length ? ids : [-1]);
  }
  const rows = await users.orderBy('id').execute();
  const statusRows = new Map((await statuses.execute()).map((r) => [r.user_id, r]));
  const out: People = { users: new Map(rows.map((u) => [u.id, u])), profiles: await realmProfileData(tx, realm.id, ids), statuses: new Map() };
  // Register lists the statuses of active users only (lib/user-status.ts realmStatuses).
  for (const u of rows) {
    const d = u.is_active ? statusDict(statusRows.get(u.id), isAway(u)) : {};
    if (Object.keys(d).length) out.statuses.set(u.id, d);
  }
  return out;
}

/**
 * For one viewer whose accessible set went from `was` to `now` (null: everyone): realm_user add (the
 * full user, with profile data) and the user's status for each user gained, realm_user remove for
 * each lost (clients without user_list_incomplete then show the "Unknown user" placeholder), as the
 * original does since feature level 228. `people`, when given, holds every user of the organization.
 */
export async function accessDiffEvents(tx: Tx, realm: Realm, viewer: User, was: Set<number> | null, now: Set<number> | null, people?: People): Promise<AccessEvent[]> {
  if (was === null && now === null) return [];
  const everyone = was !== null && now !== null ? null : people ? new Set(people.users.keys()) : new Set((await tx.selectFrom('users').select('id').where('realm_id', '=', realm.id).execute()).map((r) => r.id));
  const before = was ?? everyone!;
  const after = now ?? everyone!;
  const gained = [...after].filter((id) => !before.has(id)).sort((a, b) => a - b);
  const lost = [...before].filter((id) => !after.has(id)).sort((a, b) => a - b);
  const out: AccessEvent[] = [];
  if (gained.length) {
    const data = people ?? (await peopleOf(tx, realm, gained));
    const rows = gained.map((id) => data.users.get(id)).filter((u) => u !== undefined);
    for (const u of rows) {
      const person = presentUser(u, { clientGravatar: false, canSeeDeliveryEmail: canSeeDeliveryEmail(viewer, u), profileData: data.profiles.get(u.id) });
      out.push({ users: [viewer.id], event: { type: 'realm_user', op: 'add', person } });
    }
    // Register lists the statuses of the active users one may access: those gained come with them.
    for (const u of rows) {
      const status = data.statuses.get(u.id);
      if (status) out.push({ users: [viewer.id], event: { type: 'user_status', user_id: u.id, ...status } });
    }
  }
  for (const id of lost) out.push({ users: [viewer.id], event: { type: 'realm_user', op: 'remove', person: { user_id: id, full_name: UNKNOWN_USER_NAME } } });
  return out;
}

/**
 * After can_access_all_users_group changed from `before`'s value to `after`'s (the organization row
 * before and after): for each person limited under either value, what accessDiffEvents gives one
 * viewer. Each event goes out once, to every viewer it concerns (a user's add differs only in the
 * real email, so by whether the viewer may see it): guests × users events would be too many to send.
 */
export async function accessSettingEvents(tx: Tx, before: Realm, after: Realm): Promise<AccessEvent[]> {
  const viewers = new Map<number, User>();
  for (const realm of [before, after]) for (const v of (await restrictedUsers(tx, realm)) ?? []) viewers.set(v.id, v);
  if (!viewers.size) return [];
  // Each limited person gains or loses most of the organization: read it once, not once per person.
  const people = await peopleOf(tx, after);
  const everyone = new Set(people.users.keys());
  const gainedBy = new Map<number, { sees: number[]; not: number[] }>();
  const lostBy = new Map<number, number[]>();
  for (const v of [...viewers.values()].sort((a, b) => a.id - b.id)) {
    const was = (await accessibleUserIds(tx, before, v)) ?? everyone;
    const now = (await accessibleUserIds(tx, after, v)) ?? everyone;
    for (const id of now) {
      if (was.has(id)) continue;
      let g = gainedBy.get(id);
      if (!g) gainedBy.set(id, (g = { sees: [], not: [] }));
      (canSeeDeliveryEmail(v, people.users.get(id)!) ? g.sees : g.not).push(v.id);
    }
    for (const id of was) if (!now.has(id)) (lostBy.get(id) ?? lostBy.set(id, []).get(id)!).push(v.id);
  }
  const out: AccessEvent[] = [];
  const gained = [...gainedBy.keys()].sort((a, b) => a - b);
  for (const id of gained) {
    const u = people.users.get(id)!;
    const g = gainedBy.get(id)!;
    for (const [users, sees] of [[g.sees, true], [g.not, false]] as const) {
      if (users.length) out.push({ users, event: { type: 'realm_user', op: 'add', person: presentUser(u, { clientGravatar: false, canSeeDeliveryEmail: sees, profileData: people.profiles.get(id) }) } });
    }
  }
  // Statuses after every add: register lists those of the active users one may access.
  for (const id of gained) {
    const status = people.statuses.get(id);
    const g = gainedBy.get(id)!;
    if (status) out.push({ users: [...g.sees, ...g.not], event: { type: 'user_status', user_id: id, ...status } });
  }
  for (const id of [...lostBy.keys()].sort((a, b) => a - b)) out.push({ users: lostBy.get(id)!, event: { type: 'realm_user', op: 'remove', person: { user_id: id, full_name: UNKNOWN_USER_NAME } } });
  return out;
}

/** The viewers (of `viewerIds`) who may not access `targetId`: they get no updates about that user. */
export async function viewersWithoutAccess(tx: Tx, realm: Realm, targetId: number, viewerIds: number[]): Promise<Set<number>> {
  const blocked = new Set<number>();
  const restricted = await restrictedUsers(tx, realm);
  if (!restricted) return blocked;
  const wanted = new Set(viewerIds);
  for (const v of restricted) {
    if (v.id === targetId || !wanted.has(v.id)) continue;
    const access = await accessibleUserIds(tx, realm, v);
    if (access && !access.has(targetId)) blocked.add(v.id);
  }
  return blocked;
}

/** `viewerIds` without those who may not access `targetId`. */
export async function viewersWithAccess(tx: Tx, realm: Realm, targetId: number, viewerIds: number[]): Promise<number[]> {
  const blocked = await viewersWithoutAccess(tx, realm, targetId, viewerIds);
  return blocked.size ? viewerIds.filter((id) => !blocked.has(id)) : viewerIds;
}

/** Drops, from realm_user update and user_status events, the restricted recipients who may not access the updated user. */
export async function dropInaccessibleRecipients(tx: Tx, realm: Realm, events: AccessEvent[]): Promise<void> {
  const about = (e: AccessEvent): number | undefined =>
    e.event.type === 'realm_user' && e.event.op === 'update' ? (e.event.person as { user_id: number }).user_id : e.event.type === 'user_status' ? (e.event.user_id as number) : undefined;
  if (!events.some((e) => about(e) !== undefined)) return;
  const restricted = await restrictedUsers(tx, realm);
  if (!restricted?.length) return;
  const access = new Map<number, Set<number>>();
  for (const v of restricted) access.set(v.id, (await accessibleUserIds(tx, realm, v)) ?? new Set());
  for (const e of events) {
    const target = about(e);
    if (target === undefined) continue;
    e.users = e.users.filter((id) => access.get(id)?.has(target) ?? true);
  }
}
