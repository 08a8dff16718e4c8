// The settings new users of an organization start with (realm_user_settings_defaults): the
// personal-settings table's defaults with the organization's overrides.
import type { Tx } from '../store/store.js';
import type { Realm } from '../store/schema.js';
import { EMOJISETS, NOTIFICATION_SOUNDS, USER_SETTINGS, type SettingValue, type UserSettingsValues } from '../models/user-settings.js';
import { realmSettings } from './realm-settings.js';

/** Every personal setting but the time zone (a person's own, never an organization default). */
export const DEFAULTABLE_SETTINGS: readonly string[] = Object.keys(USER_SETTINGS).filter((n) => n !== 'timezone');

/** The organization's stored overrides (settings that differ from the table's defaults). */
export async function realmUserDefaultOverrides(tx: Tx, realmId: number): Promise<UserSettingsValues> {
  const row = await tx.selectFrom('realm_user_defaults').select('settings').where('realm_id', '=', realmId).executeTakeFirst();
  return row ? (JSON.parse(row.settings) as UserSettingsValues) : {};
}

/**
 * Effective defaults: overrides, else the table's default. email_address_visibility falls back to
 * the organization's own setting of that name, which new accounts have always started with.
 */
export function effectiveDefaults(realm: Pick<Realm, 'settings'>, overrides: UserSettingsValues): UserSettingsValues {
  const out: UserSettingsValues = {};
  for (const name of DEFAULTABLE_SETTINGS) out[name] = overrides[name] ?? USER_SETTINGS[name].default;
  const realmVisibility = realmSettings(realm).email_address_visibility;
  if (overrides.email_address_visibility === undefined && typeof realmVisibility === 'number') out.email_address_visibility = realmVisibility;
  return out;
}

/** The register object: the defaults plus the choices the settings UI offers. */
export function presentDefaults(values: UserSettingsValues): Record<string, SettingValue | unknown> {
  return {
    ...values,
    available_notification_sounds: [...NOTIFICATION_SOUNDS].filter((s) => s !== 'none'),
    emojiset_choices: EMOJISETS.map((e) => ({ ...e })),
  };
}

/** A new account's stored settings: the organization's overrides (email visibility is applied with the account's API email). */
export async function startingSettings(tx: Tx, realmId: number): Promise<UserSettingsValues> {
  const { email_address_visibility: _visibility, ...rest } = await realmUserDefaultOverrides(tx, realmId);
  return rest;
}
