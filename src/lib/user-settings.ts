// Personal-setting input: each parameter's text checked against the property table, with the original's messages.
import type { TSchema } from '@sinclair/typebox';
import { badRequest, invalidParam, toBool, toInt } from '../core/params.js';
import { INT32_MAX, INT32_MIN, Type, type ParamDecl } from '../core/param-types.js';
import { custom } from '../core/param-custom.js';
import { LANGUAGES, USER_SETTINGS, isValidTimezone, type SettingSpec, type SettingValue } from '../models/user-settings.js';

/** Messages the original gives for some settings; the rest say "Invalid <name>". */
function invalidValue(name: string, value: SettingValue): Error {
  switch (name) {
    case 'email_notifications_batching_period_seconds':
      return badRequest(`Invalid email batching period: ${value} seconds`);
    case 'notification_sound':
      return badRequest(`Invalid notification sound '${value}'`);
    case 'timezone':
      return badRequest(`Invalid timezone '${value}'`);
    default:
      return invalidParam(`Invalid ${name}`, name);
  }
}

/** Clients before the original's FL 64 JSON-encoded string settings ('"en"'); both forms mean the same. */
function unquote(text: string): string {
  if (text.length >= 2 && text.startsWith('"') && text.endsWith('"')) {
    try {
      const v: unknown = JSON.parse(text);
      if (typeof v === 'string') return v;
    } catch {
      // Not JSON: the quotes are part of the value (and will fail validation).
    }
  }
  return text;
}

/** Parses one setting's parameter text into its typed value, or throws the setting's error. */
export function parseSettingValue(name: string, text: string): SettingValue {
  const spec = USER_SETTINGS[name];
  let value: SettingValue;
  if (spec.type === 'bool') value = toBool(text, name);
  else if (spec.type === 'int') value = toInt(text, name);
  else value = unquote(text);
  if (spec.allowed && !spec.allowed.includes(value as number | string)) throw invalidValue(name, value);
  if (typeof value === 'number' && ((spec.min !== undefined && value < spec.min) || (spec.max !== undefined && value > spec.max))) throw invalidValue(name, value);
  if (name === 'timezone' && !isValidTimezone(value as string)) throw invalidValue(name, value);
  return value;
}

/** A setting's JSON Schema, from its table entry (its type, its allowed words or bounds). */
function settingSchema(spec: SettingSpec): TSchema {
  const opts = { default: spec.default };
  if (spec.allowed) return Type.Union(spec.allowed.map((v) => Type.Literal(v)), opts);
  if (spec.type === 'bool') return Type.Boolean(opts);
  if (spec.type === 'int') return Type.Integer({ ...opts, minimum: spec.min ?? INT32_MIN, maximum: spec.max ?? INT32_MAX });
  return Type.String(opts);
}

/** One declared parameter per table setting, in table order: absent means unchanged. */
export function settingParams(): Record<string, ParamDecl<SettingValue>> {
  return Object.fromEntries(Object.entries(USER_SETTINGS).map(([name, spec]) => [name, custom(settingSchema(spec), (text) => parseSettingValue(name, text))]));
}

/** The table settings a decoded request named, in table order. */
export function namedSettings(args: Record<string, unknown>): Map<string, SettingValue> {
  const out = new Map<string, SettingValue>();
  for (const name of Object.keys(USER_SETTINGS)) {
    const v = args[name];
    if (v !== undefined) out.set(name, v as SettingValue);
  }
  return out;
}

/** The English name of a declared language (for the user_settings event's language_name). */
export const languageName = (code: string): string => LANGUAGES[code] ?? code;
