// Register state for realm_user: every user the viewer may see, and the viewer's own identity.
import type { StateContext, StateFetcher } from './context.js';
import { PRESENTED_USER_COLUMNS, presentUser, type PresentedUser } from '../../presenters/user.js';
import { jsonRowsColumn, parseJsonRows } from '../../store/json-rows.js';
import { accessibleUserIds, canSeeDeliveryEmail } from '../users.js';
import { unknownUser } from '../../models/unknown-user.js';
import { realmProfileData } from '../profile-fields.js';
import { avatarInfo, avatarUrl } from '../../presenters/avatar.js';
import { Role } from '../../models/roles.js';

/**
 * The organization's users, by ID, with only the presented columns (passwords and keys of a
 * thousand users cost a third of the read). On SQLite as one JSON array (store/json-rows.ts).
 */
async function presentedUsers({ app, tx, realm }: StateContext): Promise<PresentedUser[]> {
  const q = tx.selectFrom('users').where('realm_id', '=', realm.id);
  if (app.store.dialect === 'sqlite') {
    const row = await q.select(jsonRowsColumn(PRESENTED_USER_COLUMNS).as('rows')).executeTakeFirstOrThrow();
    return parseJsonRows<PresentedUser>(row.rows, PRESENTED_USER_COLUMNS);
  }
  return q.select(PRESENTED_USER_COLUMNS).orderBy('id').execute();
}

export const realmUserState: StateFetcher = {
  types: ['realm_user'],
  async fetch(ctx) {
    const { tx, realm, user, opts } = ctx;
    const rows = await presentedUsers(ctx);
    const avatarOptional = opts.capabilities.user_avatar_url_field_optional === true;
    const profiles = await realmProfileData(tx, realm.id);
    const present = (u: (typeof rows)[number]) => {
      const p = presentUser(u, { clientGravatar: opts.clientGravatar, canSeeDeliveryEmail: canSeeDeliveryEmail(user, u), profileData: profiles.get(u.id) });
      if (avatarOptional && p.avatar_url === null) delete p.avatar_url;
      return p;
    };
    // A restricted viewer (can_access_all_users_group) gets only the users they may access; with
    // user_list_incomplete the rest are left out, otherwise each is an "Unknown user" placeholder.
    const access = user ? await accessibleUserIds(tx, realm, user) : null;
    const shown = access ? rows.filter((u) => access.has(u.id)) : rows;
    const placeholders = access && opts.capabilities.user_list_incomplete !== true ? rows.filter((u) => !access.has(u.id)).map((u) => unknownUser(u.id)) : [];
    const out: Record<string, unknown> = {
      // The rows come by ID; only placeholders need merging in.
      realm_users: placeholders.length ? [...shown.filter((u) => u.is_active).map(present), ...placeholders].sort((a, b) => (a.user_id as number) - (b.user_id as number)) : shown.filter((u) => u.is_active).map(present),
      realm_non_active_users: shown.filter((u) => !u.is_active).map(present),
      cross_realm_bots: [],
    };
    if (user) {
      const avatar = avatarInfo(user);
      Object.assign(out, {
        avatar_source: user.avatar_source,
        avatar_url: avatarUrl(avatar, { clientGravatar: false }),
        avatar_url_medium: avatarUrl(avatar, { clientGravatar: false, medium: true }),
        can_create_streams: user.role !== Role.GUEST,
        can_create_public_streams: user.role !== Role.GUEST,
        can_create_private_streams: user.role !== Role.GUEST,
        can_create_web_public_streams: user.role === Role.OWNER,
        can_subscribe_other_users: user.role !== Role.GUEST,
        can_invite_others_to_realm: user.role !== Role.GUEST,
        is_admin: user.role <= Role.ADMINISTRATOR,
        is_owner: user.role === Role.OWNER,
        is_moderator: user.role === Role.MODERATOR,
        is_guest: user.role === Role.GUEST,
        user_id: user.id,
        email: user.email,
        delivery_email: user.delivery_email,
        full_name: user.full_name,
      });
    }
    return out;
  },
};
