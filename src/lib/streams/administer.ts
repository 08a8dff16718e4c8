// Who may administer a channel, and the parameter forms of channel updates (group-setting updates, retention).
import type { Tx } from '../../store/store.js';
import type { Stream, User } from '../../store/schema.js';
import { ApiError, badRequest } from '../../core/api-error.js';
import { invalidParam, vObject } from '../../core/params.js';
import { Role } from '../../models/roles.js';
import type { GroupSettingValue } from '../groups.js';
import { hasStreamPermission, vGroupSetting } from './permissions.js';
import { accessStreamById, type StreamAccess } from './access.js';

type Member = Pick<User, 'id' | 'role' | 'realm_id' | 'is_active'>;

export const cannotAdminister = () => badRequest('You do not have permission to administer this channel.');

/** Organization administrators, and members of the channel's can_administer_channel_group. */
export async function canAdministerChannel(tx: Tx, user: Member, stream: Pick<Stream, 'realm_id' | 'permissions'>): Promise<boolean> {
  if (user.role <= Role.ADMINISTRATOR) return true;
  return hasStreamPermission(tx, user, stream, 'can_administer_channel_group');
}

/** A channel the user can see and administer; one they cannot see is "Invalid channel ID". */
export async function accessChannelForAdmin(tx: Tx, user: Member, streamId: number): Promise<StreamAccess> {
  const access = await accessStreamById(tx, user, streamId);
  if (!(await canAdministerChannel(tx, user, access.stream))) throw cannotAdminister();
  return access;
}

/** The PATCH form of a group setting: {"new": value, "old": value}, "old" optional. */
export interface SettingUpdate {
  new: GroupSettingValue;
  old?: GroupSettingValue;
}

export function vSettingUpdate(value: unknown, name: string): SettingUpdate {
  const o = vObject(value, name);
  const extra = Object.keys(o).filter((k) => k !== 'new' && k !== 'old');
  if (extra.length) throw invalidParam(`${name} has unexpected keys: ${extra.join(', ')}`, name);
  if (o.new === undefined) throw invalidParam(`${name}["new"] is missing`, name);
  const out: SettingUpdate = { new: vGroupSetting(o.new, `${name}["new"]`) };
  if (o.old !== undefined) out.old = vGroupSetting(o.old, `${name}["old"]`);
  return out;
}

/** message_retention_days as sent: "realm_default" (null), "unlimited" (-1) or a positive number of days (JSON-quoted or bare). */
export function parseRetention(text: string): number | null {
  let v = text.trim();
  if (v.startsWith('"') && v.endsWith('"') && v.length >= 2) v = v.slice(1, -1);
  if (v === 'realm_default') return null;
  if (v === 'unlimited') return -1;
  if (/^\d+$/.test(v) && Number(v) >= 1 && Number(v) <= 2147483647) return Number(v);
  throw invalidParam(`Bad value for 'message_retention_days': ${v}`, 'message_retention_days');
}

/** A text parameter clients may send JSON-quoted (topics_policy). */
export function unquote(text: string): string {
  const t = text.trim();
  if (t.startsWith('"')) {
    try {
      const v: unknown = JSON.parse(t);
      if (typeof v === 'string') return v;
    } catch {
      // Not JSON: the text as sent.
    }
  }
  return t;
}

export const channelExists = (name: string) => new ApiError(`Channel '${name}' already exists`, 'CHANNEL_ALREADY_EXISTS', 409);

/** The organization's default channels, by ID. */
export async function defaultStreamIds(tx: Tx, realmId: number): Promise<number[]> {
  const rows = await tx.selectFrom('default_streams').select('stream_id').where('realm_id', '=', realmId).orderBy('stream_id').execute();
  return rows.map((r) => r.stream_id);
}

/** The original's color check: "#" and three to six hex digits. */
export function checkColor(color: string): string {
  if (!/^#[0-9a-fA-F]{3,6}$/.test(color)) throw badRequest('color is not a valid hex color code');
  return color;
}
