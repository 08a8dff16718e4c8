// PATCH /realm: administrators (owners for some) change organization settings in one transaction;
// one `realm` event per changed setting to every user of the organization, after commit.
import type { AppContext } from '../context.js';
import type { Realm, User } from '../store/schema.js';
import type { Tx } from '../store/store.js';
import { ApiError, badRequest } from '../core/api-error.js';
import { Role } from '../models/roles.js';
import { GROUP_SETTING_LIMITS, REALM_SETTING_PROPS } from '../models/realm-setting-props.js';
import { REALM_SETTINGS_DEFAULTS } from '../models/realm-settings.js';
import { DEPRECATED_POLICIES, deprecatedPolicyValue } from '../models/permission-settings.js';
import { realmSettings } from '../lib/realm-settings.js';
import { groupSettingValue, type GroupSettingValue } from '../lib/groups.js';
import { storeGroupSetting } from '../lib/streams/permissions.js';
import { activeUserIds } from '../lib/users.js';
import { accessSettingEvents } from '../lib/user-access.js';
import { publishCommitted, to, type Outgoing } from '../events/publish.js';

/** A group setting's requested change: the new value, and optionally the value the client believes is current. */
export interface GroupSettingChange {
  new: GroupSettingValue;
  old?: GroupSettingValue;
}

export const ownerRequired = () => new ApiError('Must be an organization owner', 'BAD_REQUEST', 400);

/** Refuses a change the caller's role does not allow, before anything is read or written. */
export function checkSettingPermissions(actor: Pick<User, 'role'>, names: Iterable<string>): void {
  if (actor.role > Role.ADMINISTRATOR) throw badRequest('Must be an organization administrator');
  for (const name of names) if (REALM_SETTING_PROPS[name]?.owner && actor.role !== Role.OWNER) throw ownerRequired();
}

export async function doUpdateRealmSettings(app: AppContext, realm: Realm, actor: User, changes: Map<string, unknown>): Promise<void> {
  checkSettingPermissions(actor, changes.keys());
  const now = app.clock.now();
  const { result, stamp } = await app.store.write(async (tx) => {
    // The row as committed now: the cached one may be older than another node's change.
    const row = await tx.selectFrom('realms').selectAll().where('id', '=', realm.id).executeTakeFirstOrThrow();
    const current = realmSettings(row);
    const overrides = JSON.parse(row.settings || '{}') as Record<string, unknown>;
    const columns: { name?: string; description?: string } = {};
    const events: Record<string, unknown>[] = [];
    for (const [name, requested] of changes) {
      const prop = REALM_SETTING_PROPS[name];
      if (prop.kind === 'auth') {
        checkAuthenticationMethods(requested as Record<string, boolean>);
        continue; // Password sign-in is the only method and stays on: nothing changes.
      }
      if (prop.kind === 'group') {
        const change = requested as GroupSettingChange;
        const id = current[name] as number;
        const before = await groupSettingValue(tx, id);
        if (change.old !== undefined && !sameSettingValue(change.old, before)) throw badRequest("'old' value does not match the expected value.");
        if (sameSettingValue(change.new, before)) continue;
        // Stored first, so an unknown group or user gets its own error; a refusal rolls it back.
        const stored = await storeGroupSetting(tx, realm.id, name, change.new, { creatorId: actor.id, now });
        await checkGroupLimits(tx, realm.id, name, change.new);
        overrides[name] = stored;
        events.push({ type: 'realm', op: 'update_dict', property: 'default', data: { [name]: await groupSettingValue(tx, stored) } });
        // Clients still reading the deprecated *_policy fields see them follow, as a fresh register would show.
        events.push(...(await deprecatedPolicyChanges(tx, name, id, stored)));
        continue;
      }
      const value = requested;
      if (prop.column) {
        const col = name as 'name' | 'description';
        if (row[col] === value) continue;
        columns[col] = value as string;
      } else {
        if (current[name] === value) continue;
        if (prop.kind === 'channel' && value !== -1) await checkChannel(tx, realm.id, value as number, prop.private === true);
        // Only overrides are stored: a value back at its default leaves the JSON.
        if (REALM_SETTINGS_DEFAULTS[name] === value) delete overrides[name];
        else overrides[name] = value;
      }
      events.push(prop.dict ? { type: 'realm', op: 'update_dict', property: 'default', data: { [name]: value } } : { type: 'realm', op: 'update', property: name, value });
    }
    if (!events.length) return [];
    await tx
      .updateTable('realms')
      .set({ ...columns, settings: JSON.stringify(overrides) })
      .where('id', '=', realm.id)
      .execute();
    const users = await activeUserIds(tx, realm.id);
    const out = events.map((e): Outgoing => to(users, e as never));
    // Who may access whom changed: those limited before or after hear of the people they gained or lost
    // (concat: there may be more events than a call's arguments may be).
    if (overrides.can_access_all_users_group === current.can_access_all_users_group) return out;
    return out.concat(await accessSettingEvents(tx, row, { ...row, ...columns, settings: JSON.stringify(overrides) }));
  });
  if (!result.length) return;
  // Every node re-reads the organization row on its next request.
  app.caches.realmChanged(realm.id);
  // In batches: a change of can_access_all_users_group may send an event per user of the
  // organization, more than one bus message or one call's arguments should carry.
  for (let i = 0; i < result.length; i += PUBLISH_BATCH) publishCommitted(app, realm.id, stamp, result.slice(i, i + PUBLISH_BATCH));
}

/** Events per publish (each notice names its commit, so batches of one commit are delivered as one would be). */
const PUBLISH_BATCH = 256;

/** Whether two group-setting values name the same group (a lone subgroup with no members is that group; order does not matter). */
function sameSettingValue(a: GroupSettingValue, b: GroupSettingValue): boolean {
  const canon = (v: GroupSettingValue) =>
    typeof v === 'number' ? v : !v.direct_members.length && v.direct_subgroups.length === 1 ? v.direct_subgroups[0] : { m: [...new Set(v.direct_members)].sort((x, y) => x - y), s: [...new Set(v.direct_subgroups)].sort((x, y) => x - y) };
  return JSON.stringify(canon(a)) === JSON.stringify(canon(b));
}

function checkAuthenticationMethods(methods: Record<string, boolean>): void {
  for (const key of Object.keys(methods)) if (key !== 'password') throw badRequest(`Invalid authentication method: ${key}`);
  if (methods.password === false) throw badRequest('At least one authentication method must be enabled.');
}

/** The system groups a setting may not be, named directly or as an anonymous group's subgroup. */
async function checkGroupLimits(tx: Tx, realmId: number, setting: string, value: GroupSettingValue): Promise<void> {
  const limits = GROUP_SETTING_LIMITS[setting];
  if (!limits) return;
  const direct = typeof value === 'number' ? value : !value.direct_members.length && value.direct_subgroups.length === 1 ? value.direct_subgroups[0] : null;
  const ids = direct !== null ? [direct] : (value as Exclude<GroupSettingValue, number>).direct_subgroups;
  const rows = ids.length ? await tx.selectFrom('user_groups').select(['id', 'name', 'is_system_group']).where('realm_id', '=', realmId).where('id', 'in', ids).execute() : [];
  if (limits.only) {
    // Such a setting must be one of a few system groups, never a custom or anonymous one.
    const g = direct !== null ? rows.find((r) => r.id === direct) : undefined;
    if (!g || !g.is_system_group || !g.name) throw badRequest(`'${setting}' must be a system user group.`);
    if (!limits.only.includes(g.name)) throw badRequest(`'${setting}' setting cannot be set to '${g.name}' group.`);
    return;
  }
  for (const r of rows) {
    if (r.is_system_group && r.name && limits.forbidden?.includes(r.name)) throw badRequest(`'${setting}' setting cannot be set to '${r.name}' group.`);
  }
}

/** A channel setting names an unarchived channel of the organization; message reports go to a private one. */
async function checkChannel(tx: Tx, realmId: number, channelId: number, mustBePrivate: boolean): Promise<void> {
  const stream = await tx.selectFrom('streams').select(['invite_only', 'is_archived']).where('realm_id', '=', realmId).where('id', '=', channelId).executeTakeFirst();
  if (!stream || stream.is_archived) throw badRequest('Invalid channel ID');
  if (mustBePrivate && !stream.invite_only) throw badRequest('Moderation request channel must be private.');
}

/** The deprecated policy fields derived from `setting`, with the values its old and new group give. */
async function deprecatedPolicyChanges(tx: Tx, setting: string, before: number, after: number): Promise<Record<string, unknown>[]> {
  const policies = Object.entries(DEPRECATED_POLICIES).filter(([, p]) => p.setting === setting);
  if (!policies.length) return [];
  const names = new Map((await tx.selectFrom('user_groups').select(['id', 'name']).where('id', 'in', [before, after]).where('is_system_group', '=', 1).execute()).map((g) => [g.id, g.name]));
  return policies
    .map(([policy]) => [policy, deprecatedPolicyValue(policy, names.get(before)), deprecatedPolicyValue(policy, names.get(after))] as const)
    .filter(([, was, now]) => was !== now)
    .map(([policy, , now]) => ({ type: 'realm', op: 'update', property: policy, value: now }));
}
