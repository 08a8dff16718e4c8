// Nextcloud Talk: the configured account creates a public conversation (OCS API) whose link anyone may open.
import { badRequest } from '../../core/api-error.js';

export interface TalkServer {
  url: string;
  user: string;
  password: string;
}

/** Creates the conversation and returns its call URL. */
export async function createTalkRoom(server: TalkServer, roomName: string): Promise<string> {
  let token: unknown;
  try {
    const r = await fetch(`${server.url}/ocs/v2.php/apps/spreed/api/v4/room`, {
      method: 'POST',
      headers: {
        'OCS-APIRequest': 'true',
        accept: 'application/json',
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${server.user}:${server.password}`).toString('base64')}`,
      },
      // roomType 3: public, so participants need no Nextcloud account.
      body: new URLSearchParams({ roomType: '3', roomName }).toString(),
      signal: AbortSignal.timeout(10_000),
    });
    const body = (await r.json().catch(() => null)) as { ocs?: { data?: { token?: unknown } } } | null;
    token = r.ok ? body?.ocs?.data?.token : undefined;
  } catch {
    throw badRequest('Error connecting to the Nextcloud Talk server.');
  }
  if (typeof token !== 'string' || !/^[A-Za-z0-9]+$/.test(token)) throw badRequest('Error creating a Nextcloud Talk conversation.');
  return `${server.url}/index.php/call/${token}`;
}
