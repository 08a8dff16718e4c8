// BigBlueButton API calls: every call is signed with the server's shared secret (sha256 of call name + query + secret).
import { createHash, randomBytes } from 'node:crypto';
import { badRequest } from '../../core/api-error.js';

export interface BbbServer {
  /** The API base, e.g. https://bbb.example.com/bigbluebutton (calls go to {url}/api/{call}). */
  url: string;
  secret: string;
}

export interface BbbMeeting {
  meetingId: string;
  name: string;
  voiceOnly: boolean;
  /** The creating user, who joins as moderator; carried as BBB metadata so the checksum covers it. */
  moderator: number;
}

const q = (pairs: [string, string][]) => pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');

export function bbbChecksum(secret: string, call: string, query: string): string {
  return createHash('sha256').update(call + query + secret).digest('hex');
}

/** A fresh meeting ID with 128 random bits: nobody can guess another meeting's ID. */
export function newMeetingId(): string {
  return `parley-${randomBytes(16).toString('hex')}`;
}

/** The query of the meeting's `create` call; the same meeting always gives the same query (and checksum). */
export function createQuery(m: BbbMeeting): string {
  const pairs: [string, string][] = [['meetingID', m.meetingId], ['name', m.name]];
  if (m.voiceOnly) pairs.push(['lockSettingsDisableCam', 'true']);
  pairs.push(['meta_parley-moderator', String(m.moderator)]);
  return q(pairs);
}

/** Creates the meeting (BBB ignores a repeated create of a running meeting) with the given checksum; BBB refuses a wrong one. */
export async function createMeeting(server: BbbServer, m: BbbMeeting, checksum: string): Promise<void> {
  let body: string;
  try {
    const r = await fetch(`${server.url}/api/create?${createQuery(m)}&checksum=${checksum}`, { signal: AbortSignal.timeout(10_000) });
    body = await r.text();
  } catch {
    throw badRequest('Error connecting to the BigBlueButton server.');
  }
  if (!/<returncode>\s*SUCCESS\s*<\/returncode>/.test(body)) {
    if (/<messageKey>\s*checksumError\s*<\/messageKey>/.test(body)) throw badRequest('Error authenticating to the BigBlueButton server.');
    throw badRequest('BigBlueButton is not configured.');
  }
}

/** The signed `join` URL that lets `fullName` into the meeting with the given role. */
export function joinUrl(server: BbbServer, meetingId: string, fullName: string, moderator: boolean): string {
  const query = q([['meetingID', meetingId], ['fullName', fullName], ['role', moderator ? 'MODERATOR' : 'VIEWER'], ['redirect', 'true']]);
  return `${server.url}/api/join?${query}&checksum=${bbbChecksum(server.secret, 'join', query)}`;
}
