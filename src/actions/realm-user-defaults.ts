// PATCH /realm/user_settings_defaults: organization administrators change the settings new users
// start with; one realm_user_settings_defaults update event per changed setting, to everyone.
import type { AppContext } from '../context.js';
import type { Realm, User } from '../store/schema.js';
import { badRequest } from '../core/api-error.js';
import { Role } from '../models/roles.js';
import { USER_SETTINGS, type SettingValue } from '../models/user-settings.js';
import { activeUserIds } from '../lib/users.js';
import { effectiveDefaults, realmUserDefaultOverrides } from '../lib/realm-user-defaults.js';
import { writeWithEvents, to, type Outgoing } from '../events/publish.js';

export async function doUpdateRealmUserDefaults(app: AppContext, realm: Realm, actor: User, changes: Map<string, SettingValue>): Promise<void> {
  if (actor.role > Role.ADMINISTRATOR) throw badRequest('Must be an organization administrator');
  if (!changes.size) throw badRequest('No new data supplied');
  await writeWithEvents(
    app,
    realm.id,
    async (tx) => {
      const overrides = await realmUserDefaultOverrides(tx, realm.id);
      const before = effectiveDefaults(realm, overrides);
      const changed: [string, SettingValue][] = [];
      for (const [name, value] of changes) {
        if (before[name] === value) continue;
        // Stored only where it differs from the table's default (email visibility: always, as it also has an organization-level fallback).
        if (value === USER_SETTINGS[name].default && name !== 'email_address_visibility') delete overrides[name];
        else overrides[name] = value;
        changed.push([name, value]);
      }
      if (!changed.length) return [];
      const settings = JSON.stringify(overrides);
      const updated = await tx.updateTable('realm_user_defaults').set({ settings }).where('realm_id', '=', realm.id).executeTakeFirst();
      if (Number(updated.numUpdatedRows) === 0) await tx.insertInto('realm_user_defaults').values({ realm_id: realm.id, settings }).execute();
      const users = await activeUserIds(tx, realm.id);
      return changed.map(([property, value]): Outgoing => to(users, { type: 'realm_user_settings_defaults', op: 'update', property, value }));
    },
    (events) => events,
  );
}
