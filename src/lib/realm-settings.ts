// An organization's effective settings: stored overrides over the defaults.
import type { Realm } from '../store/schema.js';
import { REALM_SETTINGS_DEFAULTS } from '../models/realm-settings.js';

export function realmSettings(realm: Pick<Realm, 'settings'>): Record<string, unknown> {
  return { ...REALM_SETTINGS_DEFAULTS, ...(JSON.parse(realm.settings || '{}') as Record<string, unknown>) };
}

export function emptyTopicDisplayName(realm: Pick<Realm, 'settings'>): string {
  return String(realmSettings(realm).empty_topic_display_name);
}
