// Register fields for features Parley does not have, stated as such: no onboarding notices, default
// channel groups, embedded bots, search stop words, GIF-service keys or legacy linkifier tuples; and the
// viewer's receives_typing_notifications, which the original also gives at the top level.
import type { StateFetcher } from './context.js';
import { effectiveUserSettings } from '../../models/user-settings.js';

const constant = (types: string[], fields: () => Record<string, unknown>): StateFetcher => ({ types, fetch: () => Promise.resolve(fields()) });

export const absentFeatureStates: readonly StateFetcher[] = [
  // Onboarding notices are the original web app's; the navigation tour video is off (null).
  constant(['onboarding_steps'], () => ({ onboarding_steps: [], navigation_tour_video_url: null })),
  // Default channel groups have no API of their own in the reference, only this list.
  constant(['default_stream_groups'], () => ({ realm_default_stream_groups: [] })),
  // No embedded bot is shipped, so none can be configured.
  constant(['realm_embedded_bots'], () => ({ realm_embedded_bots: [] })),
  // Search uses PostgreSQL's 'simple' configuration and SQLite's FTS, neither of which drops stop words.
  constant(['stop_words'], () => ({ stop_words: [] })),
  // No GIF service is configured: the original sends an empty key then.
  constant(['giphy'], () => ({ giphy_api_key: '' })),
  constant(['tenor'], () => ({ tenor_api_key: '' })),
  constant(['klipy'], () => ({ klipy_api_key: '' })),
  // The reference: "When present, this is always an empty array" (realm_linkifiers replaced it).
  constant(['realm_filters'], () => ({ realm_filters: [] })),
  constant(['realm_billing'], () => ({ realm_billing: { has_pending_sponsorship_request: false } })),
  {
    types: ['user_settings'],
    always: true,
    async fetch({ user }) {
      return { receives_typing_notifications: user ? effectiveUserSettings(user.settings).receives_typing_notifications === true : false };
    },
  },
];
