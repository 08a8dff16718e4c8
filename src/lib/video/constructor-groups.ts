// Constructor Groups XAPI: the user's default room (created on first use), authenticated by the server's key pair.
import { createHash } from 'node:crypto';
import { badRequest } from '../../core/api-error.js';

export interface ConstructorGroupsServer {
  /** The XAPI base, e.g. https://example.constructor.app/api/groups/xapi. */
  url: string;
  accessKey: string;
  secretKey: string;
}

export const notConfigured = () => badRequest('Constructor Groups credentials have not been configured');
const failed = () => badRequest('Failed to create Constructor Groups call');

/** The XAPI bearer token: the access key, then sha256 of "access|secret" in hex. */
export function constructorGroupsToken(s: Pick<ConstructorGroupsServer, 'accessKey' | 'secretKey'>): string {
  return `${s.accessKey}|${createHash('sha256').update(`${s.accessKey}|${s.secretKey}`).digest('hex')}`;
}

/** The URL of the creator's default room; `fallbackName` is used by the service when `name` is taken. */
export async function defaultRoomUrl(server: ConstructorGroupsServer, room: { creatorEmail: string; name: string; fallbackName: string }): Promise<string> {
  let url: unknown;
  try {
    const r = await fetch(`${server.url}/room/default`, {
      method: 'POST',
      headers: { authorization: `Bearer ${constructorGroupsToken(server)}`, 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ creator_email: room.creatorEmail, name: room.name, fallback_name: room.fallbackName }),
      signal: AbortSignal.timeout(10_000),
    });
    const body = (await r.json().catch(() => null)) as { url?: unknown } | null;
    url = r.ok ? body?.url : undefined;
  } catch {
    throw failed();
  }
  if (typeof url !== 'string' || !/^https?:\/\//.test(url)) throw failed();
  return url;
}
