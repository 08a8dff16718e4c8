// Creating an organization: its system groups, default channel and owner account.
import type { AppContext } from '../context.js';
import type { Transaction } from 'kysely';
import type { DB, Realm, User } from '../store/schema.js';
import { ApiError } from '../core/api-error.js';
import { SYSTEM_GROUPS, SYSTEM_GROUP_DESCRIPTIONS, SYSTEM_SUBGROUP } from '../models/system-groups.js';
import { REALM_GROUP_SETTINGS } from '../models/realm-settings.js';
import { Role } from '../models/roles.js';
import { insertStream, pickStreamColor } from '../lib/streams-create.js';
import { insertUser } from './users.js';
import { SYSTEM_BOT_KINDS, systemBot } from './system-bots.js';
import { hashPassword } from '../lib/secrets.js';

export interface NewRealmInput {
  name: string;
  subdomain: string;
  ownerEmail: string;
  ownerName: string;
  ownerPassword: string | null;
}

export const SUBDOMAIN_RE = /^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)?$/;

export async function doCreateRealm(app: AppContext, input: NewRealmInput): Promise<{ realm: Realm; owner: User }> {
  const subdomain = input.subdomain.trim().toLowerCase();
  if (!SUBDOMAIN_RE.test(subdomain)) throw new ApiError('Subdomain may contain only lowercase letters, digits and dashes', 'BAD_REQUEST', 400);
  if (!input.name.trim()) throw new ApiError('Organization name is required', 'BAD_REQUEST', 400);
  const now = app.clock.now();
  const passwordHash = input.ownerPassword ? await hashPassword(input.ownerPassword) : null;
  const { result } = await app.store.write(async (tx) => {
    const realm = await insertRealmRows(tx, subdomain, input.name.trim(), now);

    const { user: owner } = await insertUser(tx, app.store.dialect, realm, { email: input.ownerEmail, fullName: input.ownerName, passwordHash, role: Role.OWNER }, now);
    const general = await insertStream(tx, {
      realmId: realm.id,
      name: 'general',
      description: 'Everyone is added to this channel by default.',
      renderedDescription: '<p>Everyone is added to this channel by default.</p>',
      inviteOnly: false,
      historyPublicToSubscribers: true,
      isWebPublic: false,
      creatorId: null,
      messageRetentionDays: null,
      topicsPolicy: 'inherit',
      permissions: {},
      now,
    });
    await tx.insertInto('default_streams').values({ realm_id: realm.id, stream_id: general.id }).execute();
    await tx.insertInto('subscriptions').values({ user_id: owner.id, stream_id: general.id, active: 1, is_muted: 0, pin_to_top: 0, color: pickStreamColor(0) }).execute();
    return { realm, owner };
  });
  app.caches.invalidateRealms();
  // Every organization has its system bots from the start (they send reminders, welcome messages
  // and referrer notices, and own channel email); older organizations get them on first use.
  for (const kind of SYSTEM_BOT_KINDS) await systemBot(app, result.realm, kind);
  return result;
}

/**
 * The rows every organization starts with: the realm, its system groups (with their permissions)
 * and the realm's group settings; refuses a subdomain in use. Shared with the importers.
 */
export async function insertRealmRows(tx: Transaction<DB>, subdomain: string, realmName: string, now: number): Promise<Realm> {
  const taken = await tx.selectFrom('realms').select('id').where('string_id', '=', subdomain).executeTakeFirst();
  if (taken) throw new ApiError(`Subdomain '${subdomain}' is already in use`, 'BAD_REQUEST', 400);
  const realm0 = await tx
    .insertInto('realms')
    .values({ string_id: subdomain, name: realmName, description: '', date_created: now, deactivated: 0, settings: '{}' })
    .returningAll()
    .executeTakeFirstOrThrow();
  const ids: Record<string, number> = {};
  for (const name of SYSTEM_GROUPS) {
    const g = await tx
      .insertInto('user_groups')
      .values({ realm_id: realm0.id, name, description: SYSTEM_GROUP_DESCRIPTIONS[name], is_system_group: 1, deactivated: 0, date_created: now, creator_id: null, permissions: '{}' })
      .returning('id')
      .executeTakeFirstOrThrow();
    ids[name] = g.id;
  }
  for (const [group, sub] of Object.entries(SYSTEM_SUBGROUP)) {
    await tx.insertInto('user_group_subgroups').values({ group_id: ids[group], subgroup_id: ids[sub!] }).execute();
  }
  const settings: Record<string, number> = {};
  for (const [k, def] of Object.entries(REALM_GROUP_SETTINGS)) settings[k] = ids[def];
  await tx.updateTable('realms').set({ settings: JSON.stringify(settings) }).where('id', '=', realm0.id).execute();
  const realm = { ...realm0, settings: JSON.stringify(settings) };
  // System groups are managed by the server: only owners may manage them, nobody may join.
  const groupPermissions = JSON.stringify({
    can_add_members_group: ids['role:nobody'],
    can_join_group: ids['role:nobody'],
    can_leave_group: ids['role:nobody'],
    can_manage_group: ids['role:nobody'],
    can_mention_group: ids['role:everyone'],
    can_remove_members_group: ids['role:nobody'],
  });
  await tx.updateTable('user_groups').set({ permissions: groupPermissions }).where('realm_id', '=', realm.id).execute();
  return realm;
}
