// Writes an organization in the original's export format: realm.json, messages-NNNNNN.json,
// attachment.json, uploads/, avatars/ and emoji/ with their records.json (what src/import/zulip.ts reads).
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Tx } from '../store/store.js';
import type { Realm } from '../store/schema.js';
import { dmKey, idsFromKey } from '../lib/messages/recipients.js';
import type { FileStorage } from '../lib/storage/index.js';
import { emojiFileKey, uploadFileKey } from '../lib/storage/keys.js';
import { RECIPIENT_DM_GROUP, RECIPIENT_STREAM } from '../lib/streams-create.js';
import { exportAvatars, realmColumns, realmUserDefaultRows, userColumns } from './zulip-export-extras.js';

/** Messages per messages-NNNNNN.json file, as the original writes them. */
export const MESSAGES_PER_FILE = 1000;
const RECIPIENT_PERSONAL = 1;

export interface ExportCounts {
  users: number;
  channels: number;
  messages: number;
  reactions: number;
  attachments: number;
  custom_emoji: number;
  avatars: number;
  scheduled_messages: number;
  message_files: number;
}

async function writeJson(file: string, value: unknown): Promise<void> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(file, JSON.stringify(value, null, 1));
}

const bool = (v: number) => v === 1;

/**
 * What an export holds: everything (the command line, an operator's move), public data only
 * (public channels' messages; no direct messages, private channels, drafts or topic settings), or
 * public data plus the private data of the users who consented (allow_private_data_export): the
 * direct and private-channel messages they sent, their drafts and topic settings.
 */
export type ExportScope = { kind: 'all' } | { kind: 'public' } | { kind: 'consented'; userIds: Set<number> };

/** Exports one organization into `dir` (created; must be empty) from a consistent read; files come from `files`, read in that transaction. */
export async function exportRealm(tx: Tx, realm: Realm, dir: string, files: FileStorage, scope: ExportScope = { kind: 'all' }): Promise<ExportCounts> {
  await fs.mkdir(dir, { recursive: true });
  if ((await fs.readdir(dir)).length) throw new Error(`${dir} is not empty`);

  const users = await tx.selectFrom('users').selectAll().where('realm_id', '=', realm.id).orderBy('id').execute();
  const userIds = new Set(users.map((u) => u.id));
  const consented = scope.kind === 'all' ? null : scope.kind === 'consented' ? scope.userIds : new Set<number>();
  /** Private data (direct messages, private channels, drafts, topic settings) of this user goes in. */
  const privateOf = (userId: number) => consented === null || consented.has(userId);
  const allStreams = await tx.selectFrom('streams').selectAll().where('realm_id', '=', realm.id).orderBy('id').execute();
  // A public export leaves private channels out; a consented one keeps them with what consenting members sent.
  const streams = scope.kind === 'public' ? allStreams.filter((st) => !st.invite_only) : allStreams;
  const privateChannel = new Set(streams.filter((st) => st.invite_only).map((st) => st.id));
  const dmGroups = await tx.selectFrom('direct_message_groups').selectAll().where('realm_id', '=', realm.id).orderBy('id').execute();
  const streamIds = streams.map((s) => s.id);
  const subs = streamIds.length ? await tx.selectFrom('subscriptions').selectAll().where('stream_id', 'in', streamIds).orderBy('id').execute() : [];

  // The original has a recipient per person (1:1 conversations go to it); Parley's conversations are
  // all groups. Personal recipients get IDs past Parley's own recipient IDs.
  const maxRecipient = Number((await tx.selectFrom('recipients').select((eb) => eb.fn.max<number>('id').as('m')).executeTakeFirst())?.m ?? 0);
  const personal = new Map(users.map((u, i) => [u.id, maxRecipient + 1 + i]));
  const recipients: Record<string, unknown>[] = [
    ...users.map((u) => ({ id: personal.get(u.id), type: RECIPIENT_PERSONAL, type_id: u.id })),
    ...streams.map((s) => ({ id: s.recipient_id, type: RECIPIENT_STREAM, type_id: s.id })),
  ];
  const subscriptions: Record<string, unknown>[] = [];
  let subId = 0;
  for (const u of users) subscriptions.push({ id: ++subId, user_profile: u.id, recipient: personal.get(u.id), active: u.is_active === 1, color: '#c2c2c2', is_muted: false, pin_to_top: false });
  const streamRecipient = new Map(streams.map((s) => [s.id, s.recipient_id]));
  for (const s of subs) {
    subscriptions.push({
      id: ++subId,
      user_profile: s.user_id,
      recipient: streamRecipient.get(s.stream_id),
      active: bool(s.active),
      color: s.color,
      is_muted: bool(s.is_muted),
      pin_to_top: bool(s.pin_to_top),
      desktop_notifications: s.desktop_notifications === null ? null : bool(s.desktop_notifications),
      email_notifications: s.email_notifications === null ? null : bool(s.email_notifications),
      push_notifications: s.push_notifications === null ? null : bool(s.push_notifications),
      audible_notifications: s.audible_notifications === null ? null : bool(s.audible_notifications),
      wildcard_mentions_notify: s.wildcard_mentions_notify === null ? null : bool(s.wildcard_mentions_notify),
    });
  }
  /** Parley conversation recipient → its members. Groups of three or more stay groups (with subscriptions). */
  const groupMembers = new Map<number, number[]>();
  const groups: Record<string, unknown>[] = [];
  for (const g of dmGroups) {
    const members = idsFromKey(g.user_ids_key);
    groupMembers.set(g.recipient_id, members);
    // Who talks with whom is private data: a group goes in only with a consenting member's messages.
    if (members.length < 3 || !members.some(privateOf)) continue;
    groups.push({ id: g.id, huddle_hash: g.user_ids_key, group_size: members.length });
    recipients.push({ id: g.recipient_id, type: RECIPIENT_DM_GROUP, type_id: g.id });
    for (const m of members) subscriptions.push({ id: ++subId, user_profile: m, recipient: g.recipient_id, active: true, color: '#c2c2c2', is_muted: false, pin_to_top: false });
  }
  /** The original's recipient of a direct message: the other person's (or one's own), or the group's. */
  const dmRecipient = (recipientId: number, senderId: number): number => {
    const members = groupMembers.get(recipientId) ?? [senderId];
    if (members.length >= 3) return recipientId;
    return personal.get(members.find((m) => m !== senderId) ?? senderId)!;
  };

  const clients = new Map<string, number>();
  const clientId = (name: string) => {
    if (!clients.has(name)) clients.set(name, clients.size + 1);
    return clients.get(name)!;
  };

  // Messages, in files of MESSAGES_PER_FILE, read in ID order in pages.
  let fileNo = 0;
  let messageCount = 0;
  let after = 0;
  let umId = 0;
  const exportedMessages = new Set<number>();
  for (;;) {
    const read = await tx.selectFrom('messages').selectAll().where('realm_id', '=', realm.id).where('id', '>', after).orderBy('id').limit(MESSAGES_PER_FILE).execute();
    if (!read.length) break;
    after = read[read.length - 1].id;
    const page = read.filter((m) => (m.stream_id === null || privateChannel.has(m.stream_id) ? privateOf(m.sender_id) : streamRecipient.has(m.stream_id)));
    if (!page.length) continue;
    const ums = await tx
      .selectFrom('user_messages')
      .selectAll()
      .where('message_id', 'in', page.map((m) => m.id))
      .orderBy('message_id')
      .orderBy('user_id')
      .execute();
    await writeJson(path.join(dir, `messages-${String(++fileNo).padStart(6, '0')}.json`), {
      zerver_message: page.map((m) => ({
        id: m.id,
        sender: m.sender_id,
        recipient: m.stream_id !== null ? m.recipient_id : dmRecipient(m.recipient_id, m.sender_id),
        realm: realm.id,
        subject: m.topic,
        content: m.content,
        rendered_content: m.rendered_content,
        rendered_content_version: 1,
        date_sent: m.date_sent,
        sending_client: clientId(m.sending_client),
        last_edit_time: m.last_edit_time,
        edit_history: m.edit_history,
        has_attachment: bool(m.has_attachment),
        has_image: bool(m.has_image),
        has_link: bool(m.has_link),
        is_channel_message: m.stream_id !== null,
        type: 1,
      })),
      // Internal bits (is_private's index marker, unfloored) are Parley's; the original's mask has is_private too.
      zerver_usermessage: ums.map((um) => ({ id: ++umId, user_profile: um.user_id, message: um.message_id, flags_mask: um.flags & ~512 })),
    });
    messageCount += page.length;
    for (const m of page) exportedMessages.add(m.id);
  }

  const reactions = (await tx.selectFrom('reactions').innerJoin('messages', 'messages.id', 'reactions.message_id').selectAll('reactions').where('messages.realm_id', '=', realm.id).orderBy('reactions.id').execute()).filter((r) =>
    exportedMessages.has(r.message_id),
  );
  const emoji = await tx.selectFrom('realm_emoji').selectAll().where('realm_id', '=', realm.id).orderBy('id').execute();
  const emojiRecords: Record<string, unknown>[] = [];
  for (const e of emoji) {
    const rel = `${realm.id}/emoji/images/${e.file_name}`;
    const data = await files.get(emojiFileKey(realm.id, e.file_name), tx).catch(() => null);
    if (!data) continue;
    await fs.mkdir(path.dirname(path.join(dir, 'emoji', rel)), { recursive: true });
    await fs.writeFile(path.join(dir, 'emoji', rel), data);
    emojiRecords.push({ realm_id: realm.id, file_name: e.file_name, path: rel, s3_path: rel, user_profile_id: e.author_id, name: e.name });
  }
  await writeJson(path.join(dir, 'emoji', 'records.json'), emojiRecords);

  const attachments = await tx.selectFrom('attachments').selectAll().where('realm_id', '=', realm.id).orderBy('id').execute();
  const links = (attachments.length ? await tx.selectFrom('attachment_messages').selectAll().where('attachment_id', 'in', attachments.map((a) => a.id)).execute() : []).filter((l) => exportedMessages.has(l.message_id));
  const uploadRecords: Record<string, unknown>[] = [];
  const linked = new Set(links.map((l) => l.attachment_id));
  for (const a of attachments) {
    // Without the whole export's private data, only files some exported message links go in.
    if (consented !== null && !linked.has(a.id)) continue;
    const data = await files.get(uploadFileKey(a.path_id), tx).catch(() => null);
    if (!data) continue;
    await fs.mkdir(path.dirname(path.join(dir, 'uploads', a.path_id)), { recursive: true });
    await fs.writeFile(path.join(dir, 'uploads', a.path_id), data);
    uploadRecords.push({ realm_id: realm.id, user_profile_id: a.owner_id, path: a.path_id, s3_path: a.path_id, size: a.size, content_type: a.content_type, last_modified: a.create_time });
  }
  await writeJson(path.join(dir, 'uploads', 'records.json'), uploadRecords);
  const avatarRecords = await exportAvatars(tx, users, realm, files, dir);
  await writeJson(path.join(dir, 'avatars', 'records.json'), avatarRecords);
  const exportedPaths = new Set(uploadRecords.map((r) => r.path));
  const linksOf = new Map<number, number[]>();
  for (const l of links) linksOf.set(l.attachment_id, [...(linksOf.get(l.attachment_id) ?? []), l.message_id]);
  await writeJson(path.join(dir, 'attachment.json'), {
    zerver_attachment: attachments
      .filter((a) => exportedPaths.has(a.path_id))
      .map((a) => ({ id: a.id, owner: a.owner_id, realm: realm.id, path_id: a.path_id, file_name: a.file_name, size: a.size, create_time: a.create_time, content_type: a.content_type, messages: linksOf.get(a.id) ?? [] })),
  });

  const namedGroups = await tx.selectFrom('user_groups').selectAll().where('realm_id', '=', realm.id).where('name', 'is not', null).orderBy('id').execute();
  const groupIds = namedGroups.map((g) => g.id);
  const memberships = groupIds.length ? await tx.selectFrom('user_group_members').selectAll().where('group_id', 'in', groupIds).execute() : [];
  const fields = await tx.selectFrom('custom_profile_fields').selectAll().where('realm_id', '=', realm.id).orderBy('field_order').execute();
  const fieldValues = fields.length ? await tx.selectFrom('custom_profile_field_values').selectAll().where('field_id', 'in', fields.map((f) => f.id)).execute() : [];
  const userIdList = [...userIds];
  const drafts = (userIdList.length ? await tx.selectFrom('drafts').selectAll().where('user_id', 'in', userIdList).orderBy('id').execute() : []).filter((d) => privateOf(d.user_id));
  const userTopics = (userIdList.length ? await tx.selectFrom('user_topics').selectAll().where('user_id', 'in', userIdList).execute() : []).filter((t) => privateOf(t.user_id) && streamRecipient.has(t.stream_id));
  const linkifiers = await tx.selectFrom('realm_linkifiers').selectAll().where('realm_id', '=', realm.id).orderBy('sort_order').execute();
  const defaults = await tx.selectFrom('default_streams').selectAll().where('realm_id', '=', realm.id).execute();
  const systemBots = await tx.selectFrom('realm_system_bots').selectAll().where('realm_id', '=', realm.id).execute();
  const dmByKey = new Map(dmGroups.map((g) => [g.user_ids_key, g.recipient_id]));
  let nextRecipient = Math.max(maxRecipient + users.length, ...recipients.map((r) => Number(r.id))) + 1;
  let nextGroup = Math.max(0, ...dmGroups.map((g) => g.id)) + 1;
  /** The original's recipient of a direct message to these people: a person's, or a group's (made when the group has none yet). */
  const dmRecipientOf = (senderId: number, to: number[]): number => {
    const members = [...new Set([...to, senderId])];
    if (members.length < 3) return personal.get(members.find((m) => m !== senderId) ?? senderId)!;
    const key = dmKey(members);
    const existing = dmByKey.get(key);
    if (existing !== undefined && recipients.some((r) => r.id === existing)) return existing;
    const id = existing ?? nextRecipient++;
    const groupId = nextGroup++;
    groups.push({ id: groupId, huddle_hash: key, group_size: members.length });
    recipients.push({ id, type: RECIPIENT_DM_GROUP, type_id: groupId });
    for (const m of members) subscriptions.push({ id: ++subId, user_profile: m, recipient: id, active: true, color: '#c2c2c2', is_muted: false, pin_to_top: false });
    dmByKey.set(key, id);
    return id;
  };
  /** Scheduled messages not yet sent, as the original's send-later rows (private data of their senders). */
  const scheduledRows = async () => {
    const rows = await tx.selectFrom('scheduled_messages').selectAll().where('realm_id', '=', realm.id).orderBy('id').execute();
    return rows
      .filter((m) => userIds.has(m.user_id) && privateOf(m.user_id) && (m.kind !== 'stream' || streamRecipient.has(m.stream_id!)))
      .map((m) => ({
        id: m.id,
        sender: m.user_id,
        recipient: m.kind === 'stream' ? streamRecipient.get(m.stream_id!) : dmRecipientOf(m.user_id, JSON.parse(m.to_user_ids ?? '[]') as number[]),
        stream: m.kind === 'stream' ? m.stream_id : null,
        realm: realm.id,
        subject: m.topic,
        content: m.content,
        rendered_content: m.rendered_content,
        sending_client: clientId('website'),
        scheduled_timestamp: m.scheduled_at,
        request_timestamp: m.created_at,
        read_by_sender: m.read_by_sender === null ? null : m.read_by_sender === 1,
        delivered: false,
        delivery_type: 1,
        has_attachment: false,
        failed: m.failed === 1,
        failure_message: m.failure_message,
      }));
  };

  const scheduled = await scheduledRows();
  await writeJson(path.join(dir, 'realm.json'), {
    zerver_realm: [{ ...realmColumns(realm), id: realm.id, string_id: realm.string_id, name: realm.name, description: realm.description, date_created: realm.date_created, deactivated: bool(realm.deactivated) }],
    zerver_realmuserdefault: await realmUserDefaultRows(tx, realm),
    zerver_client: [...clients].map(([name, id]) => ({ id, name })),
    zerver_userprofile: users.map((u) => ({
      ...userColumns(u),
      id: u.id,
      realm: realm.id,
      email: u.email,
      delivery_email: u.delivery_email,
      full_name: u.full_name,
      role: u.role,
      is_bot: bool(u.is_bot),
      bot_type: u.bot_type,
      bot_owner: u.bot_owner_id,
      // People's API keys stay out of the export; bots keep theirs so integrations go on working.
      api_key: u.is_bot ? u.api_key : undefined,
      is_active: bool(u.is_active),
      is_mirror_dummy: false,
      is_imported_stub: bool(u.is_imported_stub),
      date_joined: u.date_joined,
      timezone: u.timezone,
    })),
    zerver_userprofile_mirrordummy: [],
    zerver_userprofile_crossrealm: [],
    zerver_recipient: recipients,
    zerver_subscription: subscriptions,
    zerver_directmessagegroup: groups,
    zerver_stream: streams.map((s) => ({
      id: s.id,
      realm: realm.id,
      name: s.name,
      description: s.description,
      rendered_description: s.rendered_description,
      invite_only: bool(s.invite_only),
      history_public_to_subscribers: bool(s.history_public_to_subscribers),
      is_web_public: bool(s.is_web_public),
      deactivated: bool(s.is_archived),
      date_created: s.date_created,
      creator: s.creator_id,
      recipient: s.recipient_id,
      first_message_id: s.first_message_id,
      message_retention_days: s.message_retention_days,
    })),
    zerver_defaultstream: defaults.map((d, i) => ({ id: i + 1, realm: realm.id, stream: d.stream_id })),
    zerver_reaction: reactions.map((r) => ({ id: r.id, message: r.message_id, user_profile: r.user_id, emoji_name: r.emoji_name, emoji_code: r.emoji_code, reaction_type: r.reaction_type })),
    zerver_realmemoji: emoji.map((e) => ({ id: e.id, realm: realm.id, name: e.name, author: e.author_id, file_name: e.file_name, deactivated: bool(e.deactivated), is_animated: bool(e.is_animated) })),
    zerver_realmfilter: linkifiers.map((l) => ({ id: l.id, realm: realm.id, pattern: l.pattern, url_template: l.url_template, order: l.sort_order })),
    zerver_namedusergroup: namedGroups.map((g) => ({ usergroup_ptr: g.id, realm_for_sharding: realm.id, name: g.name, description: g.description, is_system_group: bool(g.is_system_group), deactivated: bool(g.deactivated), date_created: g.date_created, creator: g.creator_id })),
    zerver_usergroupmembership: memberships.map((m, i) => ({ id: i + 1, user_group: m.group_id, user_profile: m.user_id })),
    zerver_customprofilefield: fields.map((f) => ({ id: f.id, realm: realm.id, name: f.name, hint: f.hint, field_type: f.type, field_data: f.field_data, order: f.field_order, display_in_profile_summary: bool(f.display_in_profile_summary), required: bool(f.required), editable_by_user: bool(f.editable_by_user) })),
    zerver_customprofilefieldvalue: fieldValues.map((v, i) => ({ id: i + 1, user_profile: v.user_id, field: v.field_id, value: v.value, rendered_value: v.rendered_value })),
    zerver_draft: drafts.map((d) => {
      const to = JSON.parse(d.to_ids) as number[];
      let recipient: number | null = null;
      if (d.type === 'stream' && to.length) recipient = streamRecipient.get(to[0]) ?? null;
      else if (d.type === 'private' && to.length) recipient = to.length + (to.includes(d.user_id) ? 0 : 1) >= 3 ? (dmByKey.get(dmKey([...to, d.user_id])) ?? null) : (personal.get(to.find((id) => id !== d.user_id) ?? d.user_id) ?? null);
      return { id: d.id, user_profile: d.user_id, recipient, topic: d.topic, content: d.content, last_edit_time: d.last_edit_time };
    }),
    zerver_usertopic: userTopics.map((t, i) => ({ id: i + 1, user_profile: t.user_id, stream: t.stream_id, recipient: streamRecipient.get(t.stream_id), topic_name: t.topic, last_updated: t.last_updated, visibility_policy: t.visibility_policy })),
    zerver_scheduledmessage: scheduled,
    // Parley's own table: which bots the server runs, so an import into Parley does not make them twice.
    parley_realm_system_bots: systemBots.map((b) => ({ kind: b.kind, user_profile: b.user_id })),
  });
  return { users: users.length, channels: streams.length, messages: messageCount, reactions: reactions.length, attachments: uploadRecords.length, custom_emoji: emojiRecords.length, avatars: new Set(avatarRecords.map((r) => r.user_profile_id)).size, scheduled_messages: scheduled.length, message_files: fileNo };
}
