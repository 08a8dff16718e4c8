// Register state for realm: the organization's settings as realm_* fields.
import type { StateFetcher } from './context.js';
import { realmSettings } from '../realm-settings.js';
import { groupSettingValues } from '../groups.js';
import { REALM_GROUP_SETTINGS } from '../../models/realm-settings.js';
import { EMOJI_DATA_PATH, emojiDataFile } from '../emoji/unicode.js';

export const realmState: StateFetcher = {
  types: ['realm'],
  async fetch({ app, tx, realm }) {
    const settings = realmSettings(realm);
    const groupIds = Object.keys(REALM_GROUP_SETTINGS).map((k) => settings[k] as number);
    const values = await groupSettingValues(tx, groupIds);
    const out: Record<string, unknown> = {
      realm_name: realm.name,
      realm_description: realm.description,
      realm_date_created: realm.date_created,
      realm_url: realmUrl(app.config.externalUrl, realm.string_id),
      realm_uri: realmUrl(app.config.externalUrl, realm.string_id),
      realm_icon_url: '',
      realm_icon_source: 'G',
      realm_logo_url: '',
      realm_night_logo_url: '',
      realm_push_notifications_enabled: false,
      realm_presence_disabled: false,
      realm_authentication_methods: { password: { enabled: true, available: true } },
      max_file_upload_size_mib: app.config.maxFileUploadSizeMib,
      realm_upload_quota_mib: app.config.uploadQuotaMib || null,
      max_avatar_file_size_mib: app.config.maxAvatarFileSizeMib,
      realm_available_video_chat_providers: {},
      realm_default_external_accounts: {},
      server_avatar_changes_disabled: false,
      // The Unicode emoji names this server accepts; the hash changes the URL when the table does.
      server_emoji_data_url: `${realmUrl(app.config.externalUrl, realm.string_id)}/${EMOJI_DATA_PATH}?v=${emojiDataFile().hash}`,
      server_name_changes_disabled: false,
      server_needs_upgrade: false,
      server_web_public_streams_enabled: false,
      settings_send_digest_emails: false,
      realm_mandatory_topics: settings.mandatory_topics,
    };
    for (const [k, v] of Object.entries(settings)) {
      if (k in REALM_GROUP_SETTINGS) out[`realm_${k}`] = values.get(v as number) ?? v;
      // The organization's email_address_visibility is only the default of new accounts (the original's register no longer names it).
      else if (k !== 'empty_topic_display_name' && k !== 'email_address_visibility') out[`realm_${k}`] = v;
    }
    return out;
  },
};

export function realmUrl(externalUrl: string, subdomain: string): string {
  if (!subdomain) return externalUrl;
  const u = new URL(externalUrl);
  return `${u.protocol}//${subdomain}.${u.host}${u.pathname.replace(/\/$/, '')}`;
}
