// An organization's effective settings: stored overrides over the defaults.
import type { Realm } from '../store/schema.js';
import { REALM_SETTINGS_DEFAULTS } from '../models/realm-settings.js';

/** Parsed settings by their stored JSON text: a few organizations, called on every message. */
const parsed = new Map<string, Record<string, unknown>>();
const MAX_PARSED = 1000;

/** The effective settings; shared and frozen, so callers read them and never modify them. */
export function realmSettings(realm: Pick<Realm, 'settings'>): Record<string, unknown> {
  const text = realm.settings || '{}';
  let s = parsed.get(text);
  if (!s) {
    s = Object.freeze({ ...REALM_SETTINGS_DEFAULTS, ...(JSON.parse(text) as Record<string, unknown>) });
    // Settings texts only accumulate when organizations change them; start afresh past the bound.
    if (parsed.size >= MAX_PARSED) parsed.clear();
    parsed.set(text, s);
  }
  return s;
}

export function emptyTopicDisplayName(realm: Pick<Realm, 'settings'>): string {
  return String(realmSettings(realm).empty_topic_display_name);
}
