// The original's export (realm.json, messages-NNNNNN.json, attachment.json, uploads/, emoji/ with their
// records.json) → ImportBundle; settings, avatars and scheduled messages are read by zulip-extras.ts.
// Table and field names follow the original's export-and-import guide.
import fsp from 'node:fs/promises';
import path from 'node:path';
import { emptyBundle, ImportError, SUBSCRIPTION_NOTIFICATIONS, type ImportBundle, type ImportMessage } from './bundle.js';
import { readJson } from './source.js';
import { readZulipExtras } from './zulip-extras.js';

type Row = Record<string, any>;

/** Recipient types of the original: a person (1:1 conversations), a channel, a direct-message group. */
const RECIPIENT_PERSONAL = 1;
const RECIPIENT_STREAM = 2;
const RECIPIENT_GROUP = 3;

const str = (v: unknown): string => String(v);
const secs = (v: unknown): number => Math.floor(Number(v ?? 0)) || 0;

/** Every messages-NNNNNN.json file in number order, their messages sorted by date_sent then ID (the original's order). */
export async function readMessageFiles(dir: string): Promise<{ messages: Row[]; userMessages: Row[] }> {
  const files = (await fsp.readdir(dir)).filter((f) => /^messages-\d+\.json$/.test(f)).sort();
  const messages: Row[] = [];
  const userMessages: Row[] = [];
  for (const f of files) {
    const part = (await readJson<{ zerver_message?: Row[]; zerver_usermessage?: Row[] }>(dir, f))!;
    if (!Array.isArray(part.zerver_message)) throw new ImportError(`${f} has no zerver_message list`);
    messages.push(...part.zerver_message);
    userMessages.push(...(part.zerver_usermessage ?? []));
  }
  messages.sort((a, b) => Number(a.date_sent) - Number(b.date_sent) || Number(a.id) - Number(b.id));
  return { messages, userMessages };
}

/** The export's records.json of a file folder (uploads, emoji): where each stored path's bytes are. */
async function records(dir: string, folder: string): Promise<Row[]> {
  return (await readJson<Row[]>(path.join(dir, folder), 'records.json', true)) ?? [];
}

export async function readZulipExport(dir: string): Promise<ImportBundle> {
  const data = (await readJson<Record<string, Row[]>>(dir, 'realm.json'))!;
  const realmRow = data.zerver_realm?.[0];
  if (!realmRow) throw new ImportError('realm.json has no zerver_realm row');
  const bundle = emptyBundle(String(realmRow.name ?? 'Imported organization'), String(realmRow.string_id ?? ''));
  bundle.description = String(realmRow.description ?? '');
  bundle.dateCreated = realmRow.date_created !== undefined ? secs(realmRow.date_created) : undefined;

  const users = [...(data.zerver_userprofile ?? []), ...(data.zerver_userprofile_mirrordummy ?? [])];
  for (const u of users) {
    bundle.users.push({
      key: str(u.id),
      email: u.delivery_email ?? u.email ?? null,
      fullName: String(u.full_name ?? ''),
      role: Number(u.role ?? 400),
      isBot: !!u.is_bot,
      botType: u.bot_type ?? null,
      botOwnerKey: u.bot_owner !== null && u.bot_owner !== undefined ? str(u.bot_owner) : null,
      // Bots keep their keys (integrations go on working); people log in again.
      apiKey: u.is_bot ? (u.api_key ?? null) : null,
      isActive: u.is_active !== false,
      timezone: String(u.timezone ?? ''),
      dateJoined: secs(u.date_joined),
    });
  }

  const recipients = new Map((data.zerver_recipient ?? []).map((r) => [str(r.id), r]));
  const recipientOf = (id: unknown): Row => {
    const r = recipients.get(str(id));
    if (!r) throw new ImportError(`realm.json refers to unknown recipient ID ${String(id)}`);
    return r;
  };
  const groupMembers = new Map<string, string[]>();
  const channelSubs = new Map<string, Row[]>();
  for (const s of data.zerver_subscription ?? []) {
    const r = recipientOf(s.recipient);
    if (r.type === RECIPIENT_GROUP) groupMembers.set(str(r.id), [...(groupMembers.get(str(r.id)) ?? []), str(s.user_profile)]);
    else if (r.type === RECIPIENT_STREAM) channelSubs.set(str(r.type_id), [...(channelSubs.get(str(r.type_id)) ?? []), s]);
  }
  const defaults = new Set((data.zerver_defaultstream ?? []).map((d) => str(d.stream)));
  for (const s of data.zerver_stream ?? []) {
    bundle.channels.push({
      key: str(s.id),
      name: String(s.name),
      description: String(s.description ?? ''),
      inviteOnly: !!s.invite_only,
      isArchived: !!s.deactivated || !!s.is_archived,
      isDefault: defaults.has(str(s.id)),
      dateCreated: secs(s.date_created),
      creatorKey: s.creator !== null && s.creator !== undefined ? str(s.creator) : null,
      historyPublic: typeof s.history_public_to_subscribers === 'boolean' ? s.history_public_to_subscribers : undefined,
      messageRetentionDays: Number.isInteger(s.message_retention_days) ? Number(s.message_retention_days) : null,
      subscribers: (channelSubs.get(str(s.id)) ?? []).map((sub) => ({
        userKey: str(sub.user_profile),
        color: sub.color,
        isMuted: !!sub.is_muted,
        pinToTop: !!sub.pin_to_top,
        active: sub.active !== false,
        notifications: Object.fromEntries(SUBSCRIPTION_NOTIFICATIONS.map((k) => [k, typeof sub[k] === 'boolean' ? sub[k] : null])),
      })),
    });
  }

  // Conversations: a message to a person's recipient is between its sender and that person.
  const target = (recipientId: unknown, senderKey: string): Pick<ImportMessage, 'channelKey' | 'dmUserKeys'> => {
    const r = recipientOf(recipientId);
    if (r.type === RECIPIENT_STREAM) return { channelKey: str(r.type_id) };
    if (r.type === RECIPIENT_PERSONAL) return { dmUserKeys: [...new Set([senderKey, str(r.type_id)])] };
    const members = groupMembers.get(str(r.id));
    if (!members?.length) throw new ImportError(`direct-message group recipient ${String(r.id)} has no members in zerver_subscription`);
    return { dmUserKeys: members };
  };

  const clients = new Map((data.zerver_client ?? []).map((c) => [str(c.id), String(c.name)]));
  const reactions = new Map<string, Row[]>();
  for (const r of data.zerver_reaction ?? []) reactions.set(str(r.message), [...(reactions.get(str(r.message)) ?? []), r]);

  const attachmentData = (await readJson<{ zerver_attachment?: Row[] }>(dir, 'attachment.json', true))?.zerver_attachment ?? [];
  const uploadRecords = new Map((await records(dir, 'uploads')).map((r) => [String(r.s3_path ?? r.path), r]));
  const attachmentsOf = new Map<string, string[]>();
  for (const a of attachmentData) {
    const rec = uploadRecords.get(String(a.path_id));
    const key = str(a.id);
    bundle.attachments.push({
      key,
      ownerKey: str(a.owner),
      fileName: String(a.file_name),
      sourceFile: path.join(dir, 'uploads', String(rec?.path ?? a.path_id)),
      contentType: String(a.content_type ?? rec?.content_type ?? 'application/octet-stream'),
      createTime: secs(a.create_time),
      oldPathId: String(a.path_id),
    });
    for (const m of a.messages ?? []) attachmentsOf.set(str(m), [...(attachmentsOf.get(str(m)) ?? []), key]);
  }

  const { messages, userMessages } = await readMessageFiles(dir);
  const flags = new Map<string, Map<string, number>>();
  for (const um of userMessages) {
    const m = str(um.message);
    if (!flags.has(m)) flags.set(m, new Map());
    flags.get(m)!.set(str(um.user_profile), Number(um.flags_mask ?? um.flags ?? 0));
  }
  for (const m of messages) {
    if (m.sender === undefined || m.recipient === undefined) throw new ImportError(`message ${String(m.id)} has no sender or recipient`);
    const senderKey = str(m.sender);
    bundle.messages.push({
      key: str(m.id),
      senderKey,
      ...target(m.recipient, senderKey),
      topic: String(m.subject ?? m.topic ?? ''),
      content: String(m.content ?? ''),
      dateSent: secs(m.date_sent),
      sendingClient: clients.get(str(m.sending_client)) ?? undefined,
      reactions: (reactions.get(str(m.id)) ?? []).map((r) => ({ userKey: str(r.user_profile), emojiName: String(r.emoji_name) })),
      attachmentKeys: attachmentsOf.get(str(m.id)),
      flags: flags.get(str(m.id)),
      lastEditTime: m.last_edit_time ? secs(m.last_edit_time) : null,
      editHistory: m.edit_history ? (JSON.parse(String(m.edit_history)) as Row[]) : null,
    });
  }

  const emojiRecords = new Map((await records(dir, 'emoji')).map((r) => [`${str(r.realm_id)}/${String(r.file_name)}`, r]));
  for (const e of data.zerver_realmemoji ?? []) {
    const rec = emojiRecords.get(`${str(realmRow.id)}/${String(e.file_name)}`) ?? [...emojiRecords.values()].find((r) => r.file_name === e.file_name);
    bundle.emoji.push({ name: String(e.name), sourceFile: path.join(dir, 'emoji', String(rec?.path ?? e.file_name)), authorKey: e.author !== null && e.author !== undefined ? str(e.author) : null, deactivated: !!e.deactivated });
  }

  const groups = (data.zerver_namedusergroup ?? data.zerver_usergroup ?? []).filter((g) => !g.is_system_group && g.name);
  const members = new Map<string, string[]>();
  for (const m of data.zerver_usergroupmembership ?? []) members.set(str(m.user_group), [...(members.get(str(m.user_group)) ?? []), str(m.user_profile)]);
  for (const g of groups) bundle.userGroups.push({ name: String(g.name), description: String(g.description ?? ''), memberKeys: members.get(str(g.usergroup_ptr ?? g.id)) ?? [] });

  for (const l of data.zerver_realmfilter ?? []) bundle.linkifiers.push({ pattern: String(l.pattern), urlTemplate: String(l.url_template ?? l.url_format_string) });

  const values = new Map<string, Row[]>();
  for (const v of data.zerver_customprofilefieldvalue ?? []) values.set(str(v.field), [...(values.get(str(v.field)) ?? []), v]);
  for (const f of [...(data.zerver_customprofilefield ?? [])].sort((a, b) => Number(a.order ?? 0) - Number(b.order ?? 0))) {
    bundle.profileFields.push({
      key: str(f.id),
      type: Number(f.field_type),
      name: String(f.name),
      hint: String(f.hint ?? ''),
      fieldData: String(f.field_data ?? ''),
      values: (values.get(str(f.id)) ?? []).map((v) => ({ userKey: str(v.user_profile), value: String(v.value) })),
    });
  }

  for (const d of data.zerver_draft ?? []) {
    const r = d.recipient !== null && d.recipient !== undefined ? recipientOf(d.recipient) : null;
    const to = r ? target(r.id, str(d.user_profile)) : {};
    bundle.drafts.push({
      userKey: str(d.user_profile),
      type: !r ? '' : r.type === RECIPIENT_STREAM ? 'stream' : 'private',
      ...to,
      topic: String(d.topic ?? ''),
      content: String(d.content ?? ''),
      lastEditTime: secs(d.last_edit_time),
    });
  }
  // Parley's own table (the original ignores it): which bots are the server's.
  bundle.systemBots = (data.parley_realm_system_bots ?? []).map((b) => ({ kind: String(b.kind), userKey: str(b.user_profile) }));
  for (const t of data.zerver_usertopic ?? []) {
    bundle.topicPolicies.push({ userKey: str(t.user_profile), channelKey: str(t.stream), topic: String(t.topic_name), visibilityPolicy: Number(t.visibility_policy ?? 1), lastUpdated: secs(t.last_updated) });
  }
  await readZulipExtras(dir, data, realmRow, bundle, { target });
  return bundle;
}
