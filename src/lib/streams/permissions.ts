// Channel permission settings: parsing group-setting parameters, storing them as user groups, and
// checking whether a user holds a channel permission.
import type { Tx } from '../../store/store.js';
import type { Stream, User } from '../../store/schema.js';
import { ApiError, badRequest } from '../../core/api-error.js';
import { invalidParam } from '../../core/params.js';
import { isUserInGroup, systemGroupIds, type GroupSettingValue } from '../groups.js';
import { STREAM_GROUP_SETTINGS } from '../streams-create.js';

/** Every channel permission, in a stable order (the order of the API objects' keys). */
export const STREAM_PERMISSION_NAMES: readonly string[] = Object.keys(STREAM_GROUP_SETTINGS).sort();

/** JSON validator for a group-setting value: an integer group ID or {direct_members, direct_subgroups}. */
export function vGroupSetting(value: unknown, name: string): GroupSettingValue {
  if (typeof value === 'number' && Number.isSafeInteger(value)) return value;
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const o = value as Record<string, unknown>;
    const list = (key: string): number[] => {
      const v = o[key];
      if (!Array.isArray(v) || !v.every((x) => typeof x === 'number' && Number.isSafeInteger(x))) {
        throw invalidParam(`${name}.${key} is not a list of integers`, name);
      }
      return [...new Set(v as number[])];
    };
    const extra = Object.keys(o).filter((k) => k !== 'direct_members' && k !== 'direct_subgroups');
    if (extra.length) throw invalidParam(`${name} has unexpected keys: ${extra.join(', ')}`, name);
    return { direct_members: list('direct_members'), direct_subgroups: list('direct_subgroups') };
  }
  throw invalidParam(`${name} is not an integer or a dict`, name);
}

async function checkGroupIds(tx: Tx, realmId: number, ids: number[]): Promise<Map<number, string | null>> {
  const out = new Map<number, string | null>();
  if (!ids.length) return out;
  const rows = await tx.selectFrom('user_groups').select(['id', 'name', 'deactivated']).where('realm_id', '=', realmId).where('id', 'in', ids).execute();
  for (const r of rows) if (!r.deactivated) out.set(r.id, r.name);
  for (const id of ids) if (!out.has(id)) throw badRequest('Invalid user group');
  return out;
}

/**
 * Turns a requested group-setting value into the ID of the group that stores it: a named group's own
 * ID, or a new anonymous group holding the listed members and subgroups.
 */
export async function storeGroupSetting(
  tx: Tx,
  realmId: number,
  setting: string,
  value: GroupSettingValue,
  opts: { creatorId: number | null; now: number },
): Promise<number> {
  let groupId: number | null = null;
  if (typeof value === 'number') groupId = value;
  else if (value.direct_members.length === 0 && value.direct_subgroups.length === 1) groupId = value.direct_subgroups[0];
  if (groupId !== null) {
    const names = await checkGroupIds(tx, realmId, [groupId]);
    const name = names.get(groupId);
    if (name === null) throw badRequest('Invalid user group');
    if (name === 'role:internet') throw badRequest(`'${setting}' setting cannot be set to 'role:internet' group.`);
    return groupId;
  }
  const v = value as Exclude<GroupSettingValue, number>;
  const subgroups = await checkGroupIds(tx, realmId, v.direct_subgroups);
  for (const [, n] of subgroups) {
    if (n === null) throw badRequest('Invalid user group');
    if (n === 'role:internet') throw badRequest(`'${setting}' setting cannot be set to 'role:internet' group.`);
  }
  if (v.direct_members.length) {
    const found = await tx.selectFrom('users').select('id').where('realm_id', '=', realmId).where('id', 'in', v.direct_members).where('is_active', '=', 1).execute();
    const ok = new Set(found.map((r) => r.id));
    for (const id of v.direct_members) if (!ok.has(id)) throw new ApiError(`Invalid user ID: ${id}`, 'BAD_REQUEST', 400);
  }
  const g = await tx
    .insertInto('user_groups')
    .values({ realm_id: realmId, name: null, description: '', is_system_group: 0, deactivated: 0, date_created: opts.now, creator_id: opts.creatorId, permissions: '{}' })
    .returning('id')
    .executeTakeFirstOrThrow();
  if (v.direct_members.length) await tx.insertInto('user_group_members').values(v.direct_members.map((user_id) => ({ group_id: g.id, user_id }))).execute();
  if (v.direct_subgroups.length) await tx.insertInto('user_group_subgroups').values(v.direct_subgroups.map((subgroup_id) => ({ group_id: g.id, subgroup_id }))).execute();
  return g.id;
}

/** The channel's permission → group ID map, with defaults for settings added after it was created. */
export async function streamPermissionIds(tx: Tx, stream: Pick<Stream, 'realm_id' | 'permissions'>): Promise<Record<string, number>> {
  const stored = JSON.parse(stream.permissions || '{}') as Record<string, number>;
  const missing = STREAM_PERMISSION_NAMES.filter((k) => stored[k] === undefined);
  if (!missing.length) return stored;
  const groups = await systemGroupIds(tx, stream.realm_id);
  for (const k of missing) stored[k] = groups[STREAM_GROUP_SETTINGS[k] as keyof typeof groups];
  return stored;
}

type Member = Pick<User, 'id' | 'role' | 'realm_id' | 'is_active'>;

/** Whether the user holds a channel permission (membership of the group stored for it). */
export async function hasStreamPermission(tx: Tx, user: Member, stream: Pick<Stream, 'realm_id' | 'permissions'>, setting: string): Promise<boolean> {
  const ids = await streamPermissionIds(tx, stream);
  const id = ids[setting];
  return id !== undefined && isUserInGroup(tx, user, id);
}
