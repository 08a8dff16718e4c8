// The original's "Unknown user" placeholder: what clients without user_list_incomplete get for a user they may not access.

export const UNKNOWN_USER_NAME = 'Unknown user';
/** The original's avatar path for inaccessible users (the same image for every one). */
export const UNKNOWN_USER_AVATAR = '/static/images/unknown-user-avatar.png';

/** A user object in the usual format whose only variable content is the user ID. */
export function unknownUser(userId: number): Record<string, unknown> {
  return {
    user_id: userId,
    email: `user${userId}@unknown.invalid`,
    delivery_email: null,
    full_name: UNKNOWN_USER_NAME,
    date_joined: '1970-01-01T00:00:00+00:00',
    is_active: true,
    is_owner: false,
    is_admin: false,
    is_guest: false,
    is_bot: false,
    bot_type: null,
    bot_owner_id: null,
    role: 400,
    timezone: '',
    avatar_url: UNKNOWN_USER_AVATAR,
    avatar_version: 1,
    is_imported_stub: false,
    profile_data: {},
  };
}
