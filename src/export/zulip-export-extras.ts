// Parts of the original's export beyond conversations: settings as the original's row columns,
// uploaded avatars (avatars/ with its records.json) and scheduled messages (zerver_scheduledmessage).
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Realm, User } from '../store/schema.js';
import type { Tx } from '../store/store.js';
import { realmSettings } from '../lib/realm-settings.js';
import type { FileStorage } from '../lib/storage/index.js';
import { avatarFileKey } from '../lib/storage/keys.js';
import { effectiveUserSettings } from '../models/user-settings.js';

/** The organization's settings as columns of the original's realm row (a channel setting is its ID, or null). */
export function realmColumns(realm: Realm): Record<string, unknown> {
  const { moderation_request_channel_id: moderation, ...rest } = realmSettings(realm);
  return { ...rest, moderation_request_channel: typeof moderation === 'number' && moderation > 0 ? moderation : null };
}

/** A person's settings as columns of the original's user-profile row (the time zone is a column already). */
export function userColumns(u: User): Record<string, unknown> {
  const { timezone: _timezone, ...settings } = effectiveUserSettings(u.settings);
  return { ...settings, avatar_source: u.avatar_source, avatar_version: u.avatar_version };
}

/** New members' defaults as the original's realm-user-default row. */
export async function realmUserDefaultRows(tx: Tx, realm: Realm): Promise<Record<string, unknown>[]> {
  const row = await tx.selectFrom('realm_user_defaults').select('settings').where('realm_id', '=', realm.id).executeTakeFirst();
  const { timezone: _timezone, ...values } = effectiveUserSettings(row?.settings ?? '{}');
  return [{ id: 1, realm: realm.id, ...values }];
}

/**
 * Uploaded avatars in the original's layout: <realm>/<hash>.original (the largest image Parley keeps),
 * with .png and -medium.png beside it, one records.json entry per file.
 */
export async function exportAvatars(tx: Tx, users: User[], realm: Realm, files: FileStorage, dir: string): Promise<Record<string, unknown>[]> {
  const records: Record<string, unknown>[] = [];
  for (const u of users) {
    if (u.avatar_source !== 'U') continue;
    const standard = await files.get(avatarFileKey(realm.id, u.id, u.avatar_version, 'standard'), tx).catch(() => null);
    const medium = await files.get(avatarFileKey(realm.id, u.id, u.avatar_version, 'medium'), tx).catch(() => null);
    if (!standard || !medium) continue;
    const base = `${realm.id}/${createHash('sha1').update(`parley-avatar:${realm.id}:${u.id}:${u.avatar_version}`).digest('hex')}`;
    for (const [suffix, data] of [['.original', medium], ['.png', standard], ['-medium.png', medium]] as const) {
      const rel = base + suffix;
      await fs.mkdir(path.dirname(path.join(dir, 'avatars', rel)), { recursive: true });
      await fs.writeFile(path.join(dir, 'avatars', rel), data);
      records.push({ realm_id: realm.id, user_profile_id: u.id, user_profile_email: u.email, path: rel, s3_path: rel, size: data.length, last_modified: u.date_joined, content_type: 'image/png' });
    }
  }
  return records;
}
