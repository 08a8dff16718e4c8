// Mobile push devices: the original's token checks and errors. Parley runs no push service, so sending is always refused.
import type { Kysely } from 'kysely';
import type { DB } from '../store/schema.js';
import { ApiError, badRequest } from '../core/api-error.js';

export type PushKind = 'apns' | 'fcm';

/** The original's limit: tokens are opaque but never empty nor longer than this. */
const MAX_TOKEN_LENGTH = 4096;

export function validateToken(token: string, kind: PushKind): string {
  if (token === '' || token.length > MAX_TOKEN_LENGTH) throw badRequest('Empty or invalid length token');
  // APNs device tokens are hex-encoded bytes (an even number of hex digits).
  if (kind === 'apns' && !/^(?:[0-9a-fA-F]{2})+$/.test(token)) throw badRequest('Invalid APNS token');
  return token;
}

/** A bundle ID: letters, digits, dots and dashes. */
export function validateAppId(appId: string): string {
  if (!/^[.a-zA-Z0-9-]+$/.test(appId)) throw badRequest('Invalid app ID');
  return appId;
}

export const tokenDoesNotExist = () => badRequest('Token does not exist');
export const pushNotConfigured = () => new ApiError('Server is not configured to use push notification service.', 'PUSH_SERVICE_NOT_CONFIGURED', 400);
export const noActivePushDevice = () => new ApiError('No active registered push device', 'NO_ACTIVE_PUSH_DEVICE', 400);
export const deviceNotRecognized = () => new ApiError('Device not recognized', 'INVALID_PUSH_DEVICE_TOKEN', 400);

/** The user's registered devices, or only the one with the given token. */
export async function userPushDevices(db: Kysely<DB>, userId: number, token?: string): Promise<{ id: number }[]> {
  let q = db.selectFrom('push_devices').select('id').where('user_id', '=', userId);
  if (token !== undefined) q = q.where('token', '=', token);
  return q.execute();
}
