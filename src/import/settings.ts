// Organization and personal settings read from an export: only names Parley knows, with values its own
// validation would accept; anything else keeps Parley's default (an export is data, not a trusted request).
import { REALM_SETTINGS_DEFAULTS } from '../models/realm-settings.js';
import { REALM_SETTING_PROPS } from '../models/realm-setting-props.js';
import { USER_SETTINGS, type SettingValue } from '../models/user-settings.js';

/** A personal setting's value as its property table allows it, else undefined. */
export function userSettingValue(name: string, value: unknown): SettingValue | undefined {
  const spec = USER_SETTINGS[name];
  if (!spec || value === null || value === undefined) return undefined;
  if (spec.type === 'bool') return typeof value === 'boolean' ? value : undefined;
  if (spec.type === 'int') {
    if (typeof value !== 'number' || !Number.isInteger(value)) return undefined;
    if (spec.allowed && !spec.allowed.includes(value)) return undefined;
    if ((spec.min !== undefined && value < spec.min) || (spec.max !== undefined && value > spec.max)) return undefined;
    return value;
  }
  if (typeof value !== 'string' || (spec.allowed && !spec.allowed.includes(value))) return undefined;
  return value;
}

/**
 * The personal settings of a row (the original's user profile or default-settings row, where each
 * setting is a column) that differ from the defaults; the time zone is a column of its own.
 */
export function userSettingsOf(row: Record<string, unknown>): Record<string, SettingValue> {
  const out: Record<string, SettingValue> = {};
  for (const name of Object.keys(USER_SETTINGS)) {
    if (name === 'timezone') continue;
    const v = userSettingValue(name, row[name]);
    if (v !== undefined && v !== USER_SETTINGS[name].default) out[name] = v;
  }
  return out;
}

/** An organization setting's value as PATCH /realm would accept it, else undefined (group and channel settings excluded). */
function realmSettingValue(name: string, value: unknown): unknown {
  if (!(name in REALM_SETTINGS_DEFAULTS) || value === undefined) return undefined;
  const prop = REALM_SETTING_PROPS[name];
  const def = REALM_SETTINGS_DEFAULTS[name];
  if (prop?.kind === 'channel') return undefined;
  if (name === 'default_avatar_source') return value === 'G' || value === 'J' ? value : undefined;
  if (value === null) return def === null || prop?.kind === 'limit' ? null : undefined;
  if (prop?.kind === 'words' || prop?.kind === 'codes') return (prop.values as readonly unknown[]).includes(value) ? value : undefined;
  if (prop?.kind === 'int') return typeof value === 'number' && Number.isInteger(value) && value >= (prop.min ?? -Infinity) && value <= (prop.max ?? Infinity) ? value : undefined;
  if (prop?.kind === 'limit') return typeof value === 'number' && Number.isInteger(value) && value >= -1 ? value : undefined;
  if (prop?.kind === 'str') return typeof value === 'string' && value.length <= (prop.maxLength ?? Infinity) ? value : undefined;
  if (def === null) return typeof value === 'string' ? value : undefined;
  return typeof value === typeof def ? value : undefined;
}

/** The plain organization settings of the original's realm row (each setting a column). */
export function realmSettingsOf(row: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name of Object.keys(REALM_SETTINGS_DEFAULTS)) {
    const v = realmSettingValue(name, row[name]);
    // Only what differs from the defaults is stored, as PATCH /realm leaves it.
    if (v !== undefined && v !== REALM_SETTINGS_DEFAULTS[name]) out[name] = v;
  }
  return out;
}
