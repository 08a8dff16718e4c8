// Register state for user_settings: the viewer's personal settings and their choice lists.
import type { StateFetcher } from './context.js';
import { EMOJISETS, NOTIFICATION_SOUNDS, effectiveUserSettings } from '../../models/user-settings.js';

export const userSettingsState: StateFetcher = {
  types: ['user_settings'],
  async fetch({ user }) {
    if (!user) return {};
    const values = effectiveUserSettings(user.settings);
    values.timezone = user.timezone;
    return {
      user_settings: {
        ...values,
        available_notification_sounds: [...NOTIFICATION_SOUNDS].filter((s) => s !== 'none'),
        emojiset_choices: EMOJISETS.map((e) => ({ ...e })),
      },
    };
  },
};
