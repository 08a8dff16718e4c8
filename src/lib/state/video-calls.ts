// Register state for video calls: whether the user completed the provider's authorization (video_calls).
import type { StateFetcher } from './context.js';
import { videoProvider } from '../video/providers.js';

export const videoCallState: StateFetcher = {
  types: ['video_calls', 'has_videoprovider_token', 'has_webex_token'],
  // The spec names has_videoprovider_token among the fields of every register answer.
  always: true,
  async fetch({ app, tx, user }) {
    const name = videoProvider(app.config)?.name;
    const row = user && name ? await tx.selectFrom('video_call_tokens').select('provider').where('user_id', '=', user.id).executeTakeFirst() : undefined;
    const has = row !== undefined && row.provider === name;
    // A Webex token is kept while the integration is switched off, as the original keeps it.
    const webex = user ? await tx.selectFrom('webex_tokens').select('user_id').where('user_id', '=', user.id).executeTakeFirst() : undefined;
    // has_zoom_token is the original's name, which existing clients read.
    return { has_videoprovider_token: has, has_zoom_token: has, has_webex_token: webex !== undefined };
  },
};
