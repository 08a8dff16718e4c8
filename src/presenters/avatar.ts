// Avatar URLs for the three avatar sources (G third-party hosted, J generated identicon, U uploaded).
import { createHash } from 'node:crypto';
import type { User } from '../store/schema.js';

export interface AvatarInfo {
  userId: number;
  realmId: number;
  /** The API email (a dummy address when the real one is hidden from anyone). */
  email: string;
  /** The real address: third-party avatars are looked up by its hash. */
  deliveryEmail: string;
  source: string;
  version: number;
}

export type AvatarUser = Pick<User, 'id' | 'realm_id' | 'email' | 'delivery_email' | 'avatar_source' | 'avatar_version'>;

export function avatarInfo(u: AvatarUser): AvatarInfo {
  return { userId: u.id, realmId: u.realm_id, email: u.email, deliveryEmail: u.delivery_email, source: u.avatar_source, version: u.avatar_version };
}

/**
 * The avatar URL, or null when the client computes third-party avatars itself (client_gravatar),
 * which it can only do from a public address: hidden addresses always get the URL.
 */
export function avatarUrl(a: AvatarInfo, opts: { clientGravatar: boolean; medium?: boolean }): string | null {
  if (a.source === 'G') {
    if (opts.clientGravatar && a.email === a.deliveryEmail) return null;
    const hash = createHash('md5').update(a.deliveryEmail.trim().toLowerCase()).digest('hex');
    return `https://secure.gravatar.com/avatar/${hash}?d=identicon&version=${a.version}${opts.medium ? '&s=500' : ''}`;
  }
  // Generated (J) and uploaded (U) images are served by this server (views/avatars.ts).
  const kind = opts.medium ? 'medium' : 'standard';
  return `/api/v1/user_avatars/${a.realmId}/${a.userId}/${kind}.png?version=${a.version}`;
}

/** The realm_user avatar update form. */
export function avatarPerson(u: AvatarUser): Record<string, unknown> {
  const a = avatarInfo(u);
  return {
    user_id: u.id,
    avatar_source: u.avatar_source,
    avatar_url: avatarUrl(a, { clientGravatar: false }),
    avatar_url_medium: avatarUrl(a, { clientGravatar: false, medium: true }),
    avatar_version: u.avatar_version,
  };
}
