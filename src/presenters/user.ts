// The one place a user row becomes an API user object (register, GET /users, realm_user events).
import type { User } from '../store/schema.js';
import { Role } from '../models/roles.js';
import { avatarInfo, avatarUrl } from './avatar.js';

export interface UserPresentOptions {
  clientGravatar: boolean;
  /** Whether the viewer may see this user's real email address. */
  canSeeDeliveryEmail: boolean;
  /** Whether to include profile_data (custom profile fields). */
  includeProfileData?: boolean;
  /** The user's custom profile field values (src/lib/profile-fields.ts realmProfileData). */
  profileData?: Record<string, unknown>;
}

/** Formatted dates by UNIX time: register formats every user's date_joined, the same values each time. */
const isoDates = new Map<number, string>();
const MAX_ISO_DATES = 100_000;

export function isoDate(secs: number): string {
  let text = isoDates.get(secs);
  if (text === undefined) {
    text = new Date(secs * 1000).toISOString().replace('.000Z', '+00:00');
    if (isoDates.size >= MAX_ISO_DATES) isoDates.clear();
    isoDates.set(secs, text);
  }
  return text;
}

/** The columns presentUser reads: a list of many users selects these, not every column. */
export const PRESENTED_USER_COLUMNS = [
  'id', 'realm_id', 'email', 'delivery_email', 'full_name', 'date_joined', 'is_active', 'role', 'is_bot', 'bot_type', 'bot_owner_id',
  'timezone', 'avatar_source', 'avatar_version', 'is_imported_stub', 'is_deleted', 'settings',
] as const satisfies readonly (keyof User)[];
export type PresentedUser = Pick<User, (typeof PRESENTED_USER_COLUMNS)[number]>;

export function presentUser(u: PresentedUser, opts: UserPresentOptions): Record<string, unknown> {
  const out: Record<string, unknown> = {
    user_id: u.id,
    email: u.email,
    delivery_email: opts.canSeeDeliveryEmail ? u.delivery_email : null,
    full_name: u.full_name,
    date_joined: isoDate(u.date_joined),
    is_active: u.is_active === 1,
    is_owner: u.role === Role.OWNER,
    is_admin: u.role <= Role.ADMINISTRATOR,
    is_guest: u.role === Role.GUEST,
    is_bot: u.is_bot === 1,
    bot_type: u.is_bot ? u.bot_type : null,
    bot_owner_id: u.is_bot ? u.bot_owner_id : null,
    role: u.role,
    timezone: u.timezone,
    avatar_url: avatarUrl(avatarInfo(u), { clientGravatar: opts.clientGravatar }),
    avatar_version: u.avatar_version,
    is_imported_stub: u.is_imported_stub === 1,
  };
  if (u.is_deleted) out.is_deleted = true;
  if (!u.is_bot && opts.includeProfileData !== false) out.profile_data = opts.profileData ?? {};
  return out;
}
