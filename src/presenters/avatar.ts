// Avatar URLs for the three avatar sources (G third-party hosted, J generated, U uploaded).
import { createHash } from 'node:crypto';

export interface AvatarInfo {
  userId: number;
  realmId: number;
  email: string;
  source: string;
  version: number;
}

/** The avatar URL, or null when the client computes third-party avatars itself (client_gravatar). */
export function avatarUrl(a: AvatarInfo, opts: { clientGravatar: boolean; medium?: boolean }): string | null {
  if (a.source === 'G') {
    if (opts.clientGravatar) return null;
    const hash = createHash('md5').update(a.email.trim().toLowerCase()).digest('hex');
    return `https://secure.gravatar.com/avatar/${hash}?d=identicon&version=${a.version}${opts.medium ? '&s=500' : ''}`;
  }
  const kind = opts.medium ? 'medium' : 'standard';
  return `/user_avatars/${a.realmId}/${a.userId}/${kind}.png?version=${a.version}`;
}
