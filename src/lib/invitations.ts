// Invitation rules and reads: address lists, group permissions, the Invite object, key hashing.
import { createHash } from 'node:crypto';
import type { Tx } from '../store/store.js';
import type { Realm, User } from '../store/schema.js';
import { badRequest } from '../core/api-error.js';
import { isAdminRole } from '../models/roles.js';
import { isUserInGroup } from './groups.js';
import { hasRealmPermission } from './groups.js';

export const INVITE_PENDING = 0;
export const INVITE_ACCEPTED = 1;
export const INVITE_REVOKED = 2;

/** welcome_message_custom_text limit, in Unicode code points. */
export const MAX_WELCOME_TEXT = 8000;

export type InvitationRow = {
  id: number;
  email: string;
  invited_by_id: number;
  invited_at: number;
  expires_at: number | null;
  invited_as: number;
  notify_referrer_on_join: number;
};

export const inviteKeyHash = (key: string): string => createHash('sha256').update(key).digest('hex');

/** Splits invitee_emails on commas and newlines; empty entries dropped, repeats (case-insensitive) once. */
export function splitInviteeEmails(text: string): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const part of text.split(/[,\n\r]+/)) {
    const e = part.trim();
    if (!e || seen.has(e.toLowerCase())) continue;
    seen.add(e.toLowerCase());
    out.push(e);
  }
  return out;
}

/**
 * Whether the user may add members to a (named, non-system) group: the organization's
 * can_manage_all_groups, or the group's own can_add_members_group / can_manage_group.
 */
export async function canAddGroupMembers(tx: Tx, realm: Realm, user: User, group: { permissions: string }): Promise<boolean> {
  if (await hasRealmPermission(tx, user, realm, 'can_manage_all_groups')) return true;
  let perms: Record<string, unknown>;
  try {
    perms = JSON.parse(group.permissions || '{}') as Record<string, unknown>;
  } catch {
    perms = {};
  }
  for (const name of ['can_add_members_group', 'can_manage_group']) {
    const id = perms[name];
    if (typeof id === 'number' && (await isUserInGroup(tx, user, id))) return true;
  }
  return false;
}

/** Named, active groups of the realm by ID; an unknown, system or deactivated one is an error. */
export async function inviteGroups(tx: Tx, realmId: number, ids: number[]): Promise<{ id: number; permissions: string }[]> {
  if (!ids.length) return [];
  const rows = await tx.selectFrom('user_groups').select(['id', 'permissions', 'is_system_group', 'deactivated', 'name']).where('realm_id', '=', realmId).where('id', 'in', ids).execute();
  for (const id of ids) {
    const g = rows.find((r) => r.id === id);
    if (!g || g.is_system_group || g.deactivated || g.name === null) throw badRequest('Invalid user group');
  }
  return rows;
}

/** The Invite object of GET /invites for an email invitation. */
export function presentInvite(row: InvitationRow): Record<string, unknown> {
  return {
    id: row.id,
    invited_by_user_id: row.invited_by_id,
    invited: row.invited_at,
    expiry_date: row.expires_at,
    invited_as: row.invited_as,
    email: row.email,
    notify_referrer_on_join: row.notify_referrer_on_join === 1,
    is_multiuse: false,
  };
}

/** Pending, unexpired invitations the user may manage: all of them for administrators, else their own. */
export async function manageableInvites(tx: Tx, realm: Realm, user: User, now: number): Promise<InvitationRow[]> {
  let q = tx
    .selectFrom('invitations')
    .select(['id', 'email', 'invited_by_id', 'invited_at', 'expires_at', 'invited_as', 'notify_referrer_on_join'])
    .where('realm_id', '=', realm.id)
    .where('status', '=', INVITE_PENDING)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]));
  if (!isAdminRole(user.role)) q = q.where('invited_by_id', '=', user.id);
  return q.orderBy('id').execute();
}

export interface MultiuseRow {
  id: number;
  link_key: string;
  invited_by_id: number;
  invited_at: number;
  expires_at: number | null;
  invited_as: number;
}

/** Pending, unexpired reusable links the user may manage (and revoke): all for administrators, else their own. */
export async function manageableMultiuseInvites(tx: Tx, realm: Realm, user: User, now: number): Promise<MultiuseRow[]> {
  let q = tx
    .selectFrom('multiuse_invites')
    .select(['id', 'link_key', 'invited_by_id', 'invited_at', 'expires_at', 'invited_as'])
    .where('realm_id', '=', realm.id)
    .where('status', '=', INVITE_PENDING)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]));
  if (!isAdminRole(user.role)) q = q.where('invited_by_id', '=', user.id);
  return q.orderBy('id').execute();
}

/** The Invite object of a reusable link: its URL instead of an email, as the reference shows. */
export function presentMultiuseInvite(row: MultiuseRow, linkUrl: string): Record<string, unknown> {
  return { id: row.id, invited_by_user_id: row.invited_by_id, invited: row.invited_at, expiry_date: row.expires_at, invited_as: row.invited_as, link_url: linkUrl, is_multiuse: true };
}
