// Personal-setting input: each parameter's text checked against the property table, with the original's messages.
import { badRequest, invalidParam, toBool, toInt, type Params } from '../core/params.js';
import { LANGUAGES, USER_SETTINGS, isValidTimezone, type SettingValue } from '../models/user-settings.js';

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

/** Every table setting the request names, parsed, in table order. */
export function readSettingParams(p: Params): Map<string, SettingValue> {
  const out = new Map<string, SettingValue>();
  for (const name of Object.keys(USER_SETTINGS)) {
    const text = p.str(name);
    if (text !== undefined) out.set(name, parseSettingValue(name, text));
  }
  return out;
}

/** The English name of a declared language (for the user_settings event's language_name). */
export const languageName = (code: string): string => LANGUAGES[code] ?? code;
