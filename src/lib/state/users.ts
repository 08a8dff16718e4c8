// Register state for realm_user: every user the viewer may see, and the viewer's own identity.
import type { StateFetcher } from './context.js';
import { presentUser } from '../../presenters/user.js';
import { canSeeDeliveryEmail } from '../users.js';
import { avatarUrl } from '../../presenters/avatar.js';
import { Role } from '../../models/roles.js';

export const realmUserState: StateFetcher = {
  types: ['realm_user'],
  async fetch({ tx, realm, user, opts }) {
    const rows = await tx.selectFrom('users').selectAll().where('realm_id', '=', realm.id).orderBy('id').execute();
    const avatarOptional = opts.capabilities.user_avatar_url_field_optional === true;
    const present = (u: (typeof rows)[number]) => {
      const p = presentUser(u, { clientGravatar: opts.clientGravatar, canSeeDeliveryEmail: canSeeDeliveryEmail(user, u) });
      if (avatarOptional && u.avatar_source === 'G' && opts.clientGravatar) delete p.avatar_url;
      return p;
    };
    const out: Record<string, unknown> = {
      realm_users: rows.filter((u) => u.is_active).map(present),
      realm_non_active_users: rows.filter((u) => !u.is_active).map(present),
      cross_realm_bots: [],
    };
    if (user) {
      const avatar = { userId: user.id, realmId: user.realm_id, email: user.email, source: user.avatar_source, version: user.avatar_version };
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
        is_billing_admin: false,
        user_id: user.id,
        email: user.email,
        delivery_email: user.delivery_email,
        full_name: user.full_name,
        user_settings_object: true,
      });
    }
    return out;
  },
};
