// Register fields that describe this server rather than the organization: presence timing, report
// types, what the server does not do (thumbnails, URL previews, summaries, push).
import type { StateFetcher } from './context.js';
import { OFFLINE_THRESHOLD_SECS } from '../presence.js';
import { REPORT_MESSAGE_TYPES } from '../../models/report-types.js';

/** How often clients report presence (the offline threshold allows two reports and some slack). */
export const PRESENCE_PING_INTERVAL_SECS = 60;

/** Changes when the server restarts with new code: clients compare it to reload their assets. */
const SERVER_GENERATION = Math.floor(Date.now() / 1000);

export const serverConstantsState: StateFetcher = {
  types: ['realm'],
  async fetch({ user }) {
    return {
      server_presence_ping_interval_seconds: PRESENCE_PING_INTERVAL_SECS,
      server_presence_offline_threshold_seconds: OFFLINE_THRESHOLD_SECS,
      server_report_message_types: user ? REPORT_MESSAGE_TYPES.map((t) => ({ ...t })) : [],
      server_generation: SERVER_GENERATION,
      development_environment: false,
      // Parley makes no thumbnails, fetches no link previews and has no topic summaries.
      server_thumbnail_formats: [],
      server_inline_image_preview: true,
      server_inline_url_embed_preview: false,
      server_can_summarize_topics: false,
      // Organizations are never deleted automatically after deactivation.
      server_min_deactivated_realm_deletion_days: null,
      server_max_deactivated_realm_deletion_days: null,
      // Push notifications are not enabled (realm_push_notifications_enabled is false), so no end time.
      realm_push_notifications_enabled_end_timestamp: null,
    };
  },
};
