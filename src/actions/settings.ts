// Personal settings: a user's own changes and administrators' bulk edits (target_users), with their events.
import type { AppContext } from '../context.js';
import type { Realm, User } from '../store/schema.js';
import type { Tx } from '../store/store.js';
import type { Dialect } from '../store/dialect.js';
import { ApiError, badRequest } from '../core/api-error.js';
import { isAdminRole } from '../models/roles.js';
import { COLUMN_SETTINGS, USER_SETTINGS, parseStoredSettings, serializeStoredSettings, type SettingValue } from '../models/user-settings.js';
import { accessUserById, apiEmailFor, canSeeDeliveryEmail, realmHostName } from '../lib/users.js';
import { avatarPerson } from '../presenters/avatar.js';
import { groupMemberIds } from '../lib/groups.js';
import { languageName } from '../lib/user-settings.js';
import { writeWithEvents, to, type Outgoing } from '../events/publish.js';
import { dropInaccessibleRecipients } from '../lib/user-access.js';

export interface BulkTarget {
  userIds: number[];
  groupIds: number[];
  /** Leave a setting alone for users who chose it themselves. */
  skipIfAlreadyEdited: boolean;
}

export const adminRequired = () => new ApiError('Must be an organization administrator', 'UNAUTHORIZED_PRINCIPAL', 400);

type Viewer = Pick<User, 'id' | 'role'>;

/** Applies setting changes to the actor (target null) or, for an administrator, to every target user. */
export async function doUpdateSettings(app: AppContext, realm: Realm, actor: User, changes: Map<string, SettingValue>, target: BulkTarget | null): Promise<void> {
  if (target && !isAdminRole(actor.role)) throw adminRequired();
  if (!target && !changes.size) return;
  const { result } = await writeWithEvents(
    app,
    realm.id,
    async (tx) => {
      const ids = target ? await resolveTargets(tx, realm, target) : [actor.id];
      if (!ids.length || !changes.size) return { events: [] as Outgoing[], changed: [] as number[] };
      await lockUsers(tx, app.store.dialect, ids);
      const rows = await tx.selectFrom('users').selectAll().where('realm_id', '=', realm.id).where('id', 'in', ids).orderBy('id').execute();
      const viewers = await tx.selectFrom('users').select(['id', 'role']).where('realm_id', '=', realm.id).where('is_active', '=', 1).execute();
      const events: Outgoing[] = [];
      const changed: number[] = [];
      for (const row of rows) {
        const out = await applySettings(tx, row, changes, { selfSet: !target, skipEdited: target?.skipIfAlreadyEdited ?? false, host: realmHostName(app.config.externalUrl, realm) }, viewers);
        if (out.rowChanged) changed.push(row.id);
        events.push(...out.events);
      }
      // Restricted users hear nothing about people they may not access.
      await dropInaccessibleRecipients(tx, realm, events);
      return { events, changed };
    },
    (r) => r.events,
  );
  for (const id of result.changed) app.caches.userChanged(id);
}

/** Active users named directly or through groups (recursively); unknown or deactivated ones are errors. */
async function resolveTargets(tx: Tx, realm: Realm, t: BulkTarget): Promise<number[]> {
  const ids = new Set<number>();
  for (const id of t.userIds) ids.add((await accessUserById(tx, realm.id, id)).id);
  if (t.groupIds.length) {
    const groups = await tx.selectFrom('user_groups').select('id').where('realm_id', '=', realm.id).where('id', 'in', t.groupIds).execute();
    const found = new Set(groups.map((g) => g.id));
    const bad = t.groupIds.find((id) => !found.has(id));
    if (bad !== undefined) throw badRequest('Invalid user group');
    for (const g of found) for (const id of await groupMemberIds(tx, g)) ids.add(id);
  }
  return [...ids].sort((a, b) => a - b);
}

/** PostgreSQL: settings are read, merged and written back, so concurrent edits of one user must queue. */
async function lockUsers(tx: Tx, dialect: Dialect, ids: number[]): Promise<void> {
  if (dialect !== 'postgres') return;
  await tx.selectFrom('users').select('id').where('id', 'in', ids).orderBy('id').forUpdate().execute();
}

interface ApplyOptions {
  /** The user set these themselves (recorded for skip_if_already_edited); false for bulk edits. */
  selfSet: boolean;
  skipEdited: boolean;
  /** The organization's host, for dummy API emails. */
  host: string;
}

async function applySettings(tx: Tx, row: User, changes: Map<string, SettingValue>, o: ApplyOptions, viewers: Viewer[]): Promise<{ rowChanged: boolean; events: Outgoing[] }> {
  const stored = parseStoredSettings(row.settings);
  let timezone = row.timezone;
  const done: [string, SettingValue][] = [];
  for (const [name, value] of changes) {
    if (o.skipEdited && stored.selfSet.includes(name)) continue;
    // The last one to set a setting decides whether a later bulk edit with skip_if_already_edited skips it.
    stored.selfSet = o.selfSet ? [...stored.selfSet, name] : stored.selfSet.filter((n) => n !== name);
    const current = COLUMN_SETTINGS.has(name) ? timezone : (stored.values[name] ?? USER_SETTINGS[name].default);
    if (current === value) continue;
    if (name === 'timezone') timezone = value as string;
    else if (value === USER_SETTINGS[name].default) delete stored.values[name];
    else stored.values[name] = value;
    done.push([name, value]);
  }
  const settings = serializeStoredSettings(stored);
  if (settings === row.settings && timezone === row.timezone) return { rowChanged: false, events: [] };
  // Hiding the address from anyone replaces the API email with the dummy one (and back).
  const email = apiEmailFor({ ...row, settings }, o.host);
  await tx.updateTable('users').set({ settings, timezone, email }).where('id', '=', row.id).execute();
  const after: User = { ...row, settings, timezone, email };

  const events: Outgoing[] = [];
  for (const [name, value] of done) {
    const event: Record<string, unknown> = { type: 'user_settings', op: 'update', property: name, value };
    if (name === 'default_language') event.language_name = languageName(value as string);
    events.push(to([row.id], event as Outgoing['event']));
    if (name === 'enable_drafts_synchronization' && value === false) await deleteServerDrafts(tx, row.id);
    // Clients still reading the legacy user_status `away` learn of it as the original tells them.
    if (name === 'presence_enabled') events.push(to(viewers.map((v) => v.id), { type: 'user_status', user_id: row.id, away: value === false }));
    if (name === 'timezone') {
      events.push(to(viewers.map((v) => v.id), { type: 'realm_user', op: 'update', person: { user_id: row.id, email: row.email, timezone } }));
    }
    if (name === 'email_address_visibility') {
      // Clients decide on a third-party avatar from both addresses: the avatar form goes last.
      const emailChanged = after.email !== row.email;
      if (emailChanged) events.push(to(viewers.map((v) => v.id), { type: 'realm_user', op: 'update', person: { user_id: after.id, new_email: after.email } }));
      events.push(...deliveryEmailVisibilityEvents(row, after, viewers));
      if (emailChanged && after.avatar_source === 'G') events.push(to(viewers.map((v) => v.id), { type: 'realm_user', op: 'update', person: avatarPerson(after) }));
    }
  }
  return { rowChanged: true, events };
}

/** realm_user delivery_email updates for viewers who gained (the address) or lost (null) sight of it. */
export function deliveryEmailVisibilityEvents(before: User, after: User, viewers: Viewer[]): Outgoing[] {
  const gained: number[] = [];
  const lost: number[] = [];
  for (const v of viewers) {
    const was = canSeeDeliveryEmail(v, before);
    const is = canSeeDeliveryEmail(v, after);
    if (is && !was) gained.push(v.id);
    if (was && !is) lost.push(v.id);
  }
  return [
    to(gained, { type: 'realm_user', op: 'update', person: { user_id: after.id, delivery_email: after.delivery_email } }),
    to(lost, { type: 'realm_user', op: 'update', person: { user_id: after.id, delivery_email: null } }),
  ];
}

/**
 * Turning enable_drafts_synchronization off deletes the user's drafts stored on the server (their
 * clients keep local copies; no drafts events are sent: the user_settings event tells clients).
 * Runs under the user row lock lockUsers took, which draft writes also take (actions/drafts.ts).
 */
export async function deleteServerDrafts(tx: Tx, userId: number): Promise<void> {
  await tx.deleteFrom('drafts').where('user_id', '=', userId).execute();
}
