// Register state for video calls: whether the user completed the provider's authorization (video_calls).
import type { StateFetcher } from './context.js';
import { videoProvider } from '../video/providers.js';

export const videoCallState: StateFetcher = {
  types: ['video_calls', 'has_videoprovider_token'],
  // The spec names has_videoprovider_token among the fields of every register answer.
  always: true,
  async fetch({ app, tx, user }) {
    const name = videoProvider(app.config)?.name;
    const row = user && name ? await tx.selectFrom('video_call_tokens').select('provider').where('user_id', '=', user.id).executeTakeFirst() : undefined;
    const has = row !== undefined && row.provider === name;
    // has_zoom_token is the original's name, which existing clients read.
    return { has_videoprovider_token: has, has_zoom_token: has };
  },
};
