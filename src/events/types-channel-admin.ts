// Event types of channel and organization administration (default channels, folders, domains,
// playgrounds, new users' setting defaults); test/channel-admin-events.test.ts covers each one.
export const CHANNEL_ADMIN_EVENT_TYPES = ['default_streams', 'channel_folder', 'realm_domains', 'realm_playgrounds', 'realm_user_settings_defaults'] as const;
