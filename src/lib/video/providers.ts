// Video-call providers: the operator picks one (PARLEY_VIDEO_PROVIDER); each creates meeting URLs for authorized users.
import { randomBytes } from 'node:crypto';
import type { Config } from '../../config.js';

export interface VideoProvider {
  /** Stored with each user's authorization: switching providers invalidates old ones. */
  readonly name: string;
  /** Completes a user's authorization and returns the credential to keep (an OAuth token for hosted services). */
  authorize(userId: number): Promise<string>;
  /** A new meeting's URL, created with the user's stored credential. */
  createMeeting(token: string): Promise<string>;
}

/**
 * Rooms under a configured base URL (a self-hosted Jitsi Meet, for example): no external account,
 * so authorizing only records the user's consent. The room name carries 128 random bits, so no one
 * can guess a meeting's address.
 */
class MeetingUrlProvider implements VideoProvider {
  readonly name = 'meeting-url';
  constructor(private readonly baseUrl: string) {}

  authorize(): Promise<string> {
    return Promise.resolve(randomBytes(16).toString('hex'));
  }

  createMeeting(): Promise<string> {
    return Promise.resolve(`${this.baseUrl}/parley-${randomBytes(16).toString('hex')}`);
  }
}

/** The configured provider, or null when video calls are not set up on this server. */
export function videoProvider(config: Pick<Config, 'videoProvider' | 'videoBaseUrl'>): VideoProvider | null {
  if (config.videoProvider === 'meeting-url' && /^https?:\/\/[^/]/.test(config.videoBaseUrl)) return new MeetingUrlProvider(config.videoBaseUrl);
  return null;
}
