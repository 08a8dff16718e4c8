// Register's organization fields beyond the settings table: server limits and policies, the deprecated
// *_policy numbers derived from their group settings, logos and plan of a self-hosted server,
// and what each group-permission setting may be set to.
import { createHash } from 'node:crypto';
import type { StateFetcher } from './context.js';
import type { Realm } from '../../store/schema.js';
import { realmSettings } from '../realm-settings.js';
import { realmHostName } from '../users.js';
import { GROUP_PERMISSION_DEFAULTS, GROUP_PERMISSION_FORBIDDEN, GROUP_PERMISSIONS } from '../groups.js';
import { STREAM_GROUP_SETTINGS } from '../streams-create.js';
import { REALM_GROUP_SETTINGS } from '../../models/realm-settings.js';
import { GROUP_SETTING_LIMITS } from '../../models/realm-setting-props.js';
import { DEPRECATED_POLICIES, GIF_RATING_OPTIONS, deprecatedPolicyValue, permissionSetting } from '../../models/permission-settings.js';

/** Shortest password accepted (actions/account.ts MIN_PASSWORD_LENGTH; a test keeps them equal). */
export const PASSWORD_MIN_LENGTH = 6;
/** Longest password accepted (actions/account.ts MAX_PASSWORD_LENGTH; a test keeps them equal). */
export const PASSWORD_MAX_LENGTH = 100;
/** Longest reminder note (actions/reminders.ts MAX_REMINDER_NOTE_LENGTH; a test keeps them equal). */
export const REMINDER_NOTE_MAX_LENGTH = 1000;

/** A stable identifier from what never changes about the organization (its ID and creation time), in UUID form. */
export function realmUuid(realm: Pick<Realm, 'id' | 'date_created'>): string {
  const h = createHash('sha256').update(`parley realm ${realm.id} ${realm.date_created}`).digest('hex');
  // Version 8 (custom) and the RFC 9562 variant.
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-8${h.slice(13, 16)}-${((parseInt(h[16]!, 16) & 3) | 8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

const SUPPORTED_PERMISSION_SETTINGS = {
  realm: Object.fromEntries(Object.entries(REALM_GROUP_SETTINGS).map(([k, def]) => [k, permissionSetting(def, GROUP_SETTING_LIMITS[k] ?? {})])),
  stream: Object.fromEntries(Object.entries(STREAM_GROUP_SETTINGS).map(([k, def]) => [k, permissionSetting(def, {})])),
  group: Object.fromEntries(GROUP_PERMISSIONS.map((k) => [k, permissionSetting(GROUP_PERMISSION_DEFAULTS[k], { forbidden: GROUP_PERMISSION_FORBIDDEN[k] }, 'role:nobody')])),
};

export const realmExtrasState: StateFetcher = {
  types: ['realm'],
  async fetch({ app, tx, realm }) {
    const settings = realmSettings(realm);
    const policyGroups = Object.values(DEPRECATED_POLICIES).map((p) => settings[p.setting]).filter((v): v is number => typeof v === 'number');
    const names = new Map((policyGroups.length === 0 ? [] : await tx.selectFrom('user_groups').select(['id', 'name']).where('id', 'in', policyGroups).where('is_system_group', '=', 1).execute()).map((g) => [g.id, g.name]));
    const serverJitsi = app.config.videoProvider === 'meeting-url' && app.config.videoBaseUrl ? app.config.videoBaseUrl : null;
    const out: Record<string, unknown> = {
      max_icon_file_size_mib: app.config.maxAvatarFileSizeMib,
      max_logo_file_size_mib: app.config.maxAvatarFileSizeMib,
      // No organization logo can be uploaded: the default is shown.
      realm_logo_source: 'D',
      realm_night_logo_source: 'D',
      realm_bot_domain: realmHostName(app.config.externalUrl, realm),
      realm_uuid: realmUuid(realm),
      realm_email_auth_enabled: true,
      realm_password_auth_enabled: true,
      realm_owner_full_content_access: false,
      // A self-hosted server: no plan limits, no billing.
      realm_plan_type: 1,
      zulip_plan_is_not_limited: true,
      upgrade_text_for_wide_organization_logo: '',
      server_jitsi_server_url: serverJitsi,
      jitsi_server_url: (settings.jitsi_server_url as string | null) ?? serverJitsi ?? '',
      password_min_length: PASSWORD_MIN_LENGTH,
      password_max_length: PASSWORD_MAX_LENGTH,
      // Passwords are checked by length only (no strength estimate).
      password_min_guesses: 0,
      gif_rating_policy_options: GIF_RATING_OPTIONS,
      server_supported_permission_settings: SUPPORTED_PERMISSION_SETTINGS,
      max_reminder_note_length: REMINDER_NOTE_MAX_LENGTH,
      // Parley sends no new-subscription messages; the original's bound is stated for clients that read it.
      max_bulk_new_subscription_messages: 100,
    };
    for (const [policy, p] of Object.entries(DEPRECATED_POLICIES)) out[`realm_${policy}`] = deprecatedPolicyValue(policy, names.get(settings[p.setting] as number));
    return out;
  },
};
