// An imported organization's settings (plain, group and channel settings; new members' defaults),
// people's uploaded avatars and the messages they scheduled, after groups, channels and people exist.
import fs from 'node:fs/promises';
import type { Transaction } from 'kysely';
import type { DB, Realm } from '../store/schema.js';
import { systemGroupIds } from '../lib/groups.js';
import { resizeAvatar, type AvatarKind } from '../lib/avatars.js';
import type { FileStorage } from '../lib/storage/index.js';
import { avatarFileKey } from '../lib/storage/keys.js';
import { renderMessage, type RenderContext } from '../lib/markdown/index.js';
import { ImportError, type ImportBundle } from './bundle.js';
import type { ChannelRef } from './write.js';

export interface SettingsWriteContext {
  tx: Transaction<DB>;
  realm: Realm;
  /** The app's file store (written in tx, so the database store's rows commit with the import). */
  files: FileStorage;
  userIds: Map<string, number>;
  channelIds: Map<string, ChannelRef>;
  /** Imported user groups: name → new ID. */
  groupIds: Map<string, number>;
  renderCtx: RenderContext;
  /** Storage keys written so far; removed if the import fails. */
  written: string[];
}

export async function writeRealmSettings(c: SettingsWriteContext, bundle: ImportBundle): Promise<void> {
  const { tx, realm } = c;
  const settings = JSON.parse(realm.settings || '{}') as Record<string, unknown>;
  Object.assign(settings, bundle.realmSettings ?? {});
  const system = (await systemGroupIds(tx, realm.id)) as Record<string, number>;
  for (const [name, group] of Object.entries(bundle.realmGroupSettings ?? {})) {
    const id = system[group] ?? c.groupIds.get(group);
    if (id !== undefined) settings[name] = id;
  }
  // Reports go to a private channel only (as PATCH /realm requires); otherwise reporting stays off.
  const moderation = bundle.moderationChannelKey !== undefined ? bundle.channels.find((ch) => ch.key === bundle.moderationChannelKey) : undefined;
  if (moderation?.inviteOnly) settings.moderation_request_channel_id = c.channelIds.get(moderation.key)!.id;
  await tx.updateTable('realms').set({ settings: JSON.stringify(settings) }).where('id', '=', realm.id).execute();
  if (bundle.realmUserDefaults && Object.keys(bundle.realmUserDefaults).length) {
    await tx.deleteFrom('realm_user_defaults').where('realm_id', '=', realm.id).execute();
    await tx.insertInto('realm_user_defaults').values({ realm_id: realm.id, settings: JSON.stringify(bundle.realmUserDefaults) }).execute();
  }
}

const KINDS: AvatarKind[] = ['standard', 'medium'];

/** Uploaded avatars, resized as an upload is; a missing or undecodable image stops the import. */
export async function writeAvatars(c: SettingsWriteContext, bundle: ImportBundle): Promise<number> {
  let n = 0;
  for (const u of bundle.users) {
    if (!u.avatarFile) continue;
    const userId = c.userIds.get(u.key)!;
    let data: Buffer;
    try {
      data = await fs.readFile(u.avatarFile);
    } catch {
      throw new ImportError(`the export refers to a missing file for the avatar of user ${u.key}: ${u.avatarFile}`);
    }
    const images = await resizeAvatar(data).catch(() => {
      throw new ImportError(`the avatar of user ${u.key} is not an image: ${u.avatarFile}`);
    });
    const version = 2;
    for (const k of KINDS) {
      const key = avatarFileKey(c.realm.id, userId, version, k);
      c.written.push(key);
      await c.files.put(key, images[k], 'image/png', c.tx);
    }
    await c.tx.updateTable('users').set({ avatar_source: 'U', avatar_version: version }).where('id', '=', userId).execute();
    n++;
  }
  return n;
}

/** Scheduled messages, rendered now as the server renders them when scheduled. */
export async function writeScheduledMessages(c: SettingsWriteContext, bundle: ImportBundle): Promise<number> {
  const list = bundle.scheduledMessages ?? [];
  for (const m of list) {
    const rendered = renderMessage(m.content, c.renderCtx).html;
    await c.tx
      .insertInto('scheduled_messages')
      .values({
        realm_id: c.realm.id,
        user_id: c.userIds.get(m.senderKey)!,
        kind: m.channelKey !== undefined ? 'stream' : 'private',
        stream_id: m.channelKey !== undefined ? c.channelIds.get(m.channelKey)!.id : null,
        to_user_ids: m.channelKey !== undefined ? null : JSON.stringify(m.dmUserKeys!.map((k) => c.userIds.get(k)!)),
        topic: m.channelKey !== undefined ? m.topic : '',
        content: m.content,
        rendered_content: rendered,
        scheduled_at: m.scheduledAt,
        read_by_sender: m.readBySender === null ? null : m.readBySender ? 1 : 0,
        created_at: m.createdAt,
        failed: m.failed ? 1 : 0,
        failure_message: m.failureMessage,
        claimed_until: null,
      })
      .execute();
  }
  return list.length;
}
