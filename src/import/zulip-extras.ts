// The rest of the original's export: organization settings (realm row columns, group settings by group,
// new members' defaults), personal settings, uploaded avatars (avatars/records.json) and scheduled messages.
import path from 'node:path';
import { REALM_GROUP_SETTINGS } from '../models/realm-settings.js';
import { serializeStoredSettings } from '../models/user-settings.js';
import { ImportError, type ImportBundle, type ImportMessage } from './bundle.js';
import { readJson } from './source.js';
import { realmSettingsOf, userSettingsOf } from './settings.js';

type Row = Record<string, any>;

/** The original's scheduled-message kinds: send later (1) is a message; reminders (2) are not imported as messages. */
const SEND_LATER = 1;

export interface ZulipReadHelpers {
  /** A recipient ID → the channel or the direct-message members it names. */
  target(recipientId: unknown, senderKey: string): Pick<ImportMessage, 'channelKey' | 'dmUserKeys'>;
}

export async function readZulipExtras(dir: string, data: Record<string, Row[]>, realmRow: Row, bundle: ImportBundle, h: ZulipReadHelpers): Promise<void> {
  bundle.realmSettings = realmSettingsOf(realmRow);
  // Group settings name a user group by ID: kept as the group's name, mapped to the new group on write.
  const groupNames = new Map<string, string>();
  for (const g of data.zerver_namedusergroup ?? data.zerver_usergroup ?? []) if (g.name) groupNames.set(String(g.usergroup_ptr ?? g.id), String(g.name));
  bundle.realmGroupSettings = {};
  for (const name of Object.keys(REALM_GROUP_SETTINGS)) {
    const group = groupNames.get(String(realmRow[name]));
    if (group) bundle.realmGroupSettings[name] = group;
  }
  const moderation = realmRow.moderation_request_channel ?? realmRow.moderation_request_channel_id;
  if (moderation !== null && moderation !== undefined && moderation !== -1) bundle.moderationChannelKey = String(moderation);
  const defaults = data.zerver_realmuserdefault?.[0];
  if (defaults) bundle.realmUserDefaults = userSettingsOf(defaults);

  const profiles = new Map([...(data.zerver_userprofile ?? []), ...(data.zerver_userprofile_mirrordummy ?? [])].map((u) => [String(u.id), u]));
  for (const u of bundle.users) {
    const row = profiles.get(u.key);
    if (!row) continue;
    const values = userSettingsOf(row);
    // The person chose these themselves in the source (an administrator's bulk change skips them, as it would there).
    if (Object.keys(values).length) u.settings = serializeStoredSettings({ values, selfSet: Object.keys(values) });
  }

  // Uploaded avatars: the original keeps each at <realm>/<hash> with the upload as ".original" (and
  // resized copies); the upload is the image to use, else whichever image is there.
  const avatarRecords = (await readJson<Row[]>(path.join(dir, 'avatars'), 'records.json', true)) ?? [];
  const avatarOf = new Map<string, string>();
  for (const r of avatarRecords) {
    const key = String(r.user_profile_id);
    const file = String(r.path ?? r.s3_path);
    if (!avatarOf.has(key) || file.endsWith('.original')) avatarOf.set(key, file);
  }
  for (const u of bundle.users) {
    const file = avatarOf.get(u.key);
    if (file && profiles.get(u.key)?.avatar_source !== 'G') u.avatarFile = path.join(dir, 'avatars', file);
  }

  bundle.scheduledMessages = [];
  for (const m of data.zerver_scheduledmessage ?? []) {
    if (m.delivered || (m.delivery_type ?? SEND_LATER) !== SEND_LATER) continue;
    if (m.sender === undefined || m.recipient === undefined) throw new ImportError(`scheduled message ${String(m.id)} has no sender or recipient`);
    const senderKey = String(m.sender);
    const to = h.target(m.recipient, senderKey);
    bundle.scheduledMessages.push({
      senderKey,
      ...(to.channelKey !== undefined ? { channelKey: to.channelKey } : { dmUserKeys: to.dmUserKeys!.filter((k) => k !== senderKey).length ? to.dmUserKeys!.filter((k) => k !== senderKey) : [senderKey] }),
      topic: String(m.subject ?? ''),
      content: String(m.content ?? ''),
      scheduledAt: Math.floor(Number(m.scheduled_timestamp)) || 0,
      createdAt: Math.floor(Number(m.request_timestamp ?? m.scheduled_timestamp)) || 0,
      readBySender: typeof m.read_by_sender === 'boolean' ? m.read_by_sender : null,
      failed: !!m.failed,
      failureMessage: m.failure_message === null || m.failure_message === undefined ? null : String(m.failure_message),
    });
  }
}
