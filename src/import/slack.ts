// Slack export (users.json, channels.json, groups.json, dms.json, mpims.json, a folder of daily files
// per conversation) → ImportBundle: channels, DMs, group DMs, threads as topics, reactions, local files.
import fsp from 'node:fs/promises';
import path from 'node:path';
import { Role } from '../models/roles.js';
import { emptyBundle, ImportError, type ImportAttachment, type ImportBundle, type ImportMessage } from './bundle.js';
import { readJson } from './source.js';
import { mrkdwnToMarkdown, type MrkdwnNames } from './slack-mrkdwn.js';

interface SlackUser {
  id: string;
  name?: string;
  real_name?: string;
  deleted?: boolean;
  is_bot?: boolean;
  is_app_user?: boolean;
  is_admin?: boolean;
  is_owner?: boolean;
  is_primary_owner?: boolean;
  is_restricted?: boolean;
  is_ultra_restricted?: boolean;
  tz?: string;
  updated?: number;
  profile?: { real_name?: string; display_name?: string; email?: string };
}

interface SlackConversation {
  id: string;
  name?: string;
  created?: number | string;
  creator?: string;
  is_archived?: boolean;
  is_general?: boolean;
  members?: string[];
  purpose?: { value?: string };
  topic?: { value?: string };
}

interface SlackFile {
  id?: string;
  name?: string;
  title?: string;
  mimetype?: string;
  created?: number;
  user?: string;
  url_private?: string;
  permalink?: string;
}

interface SlackMessage {
  type?: string;
  subtype?: string;
  user?: string;
  text?: string;
  ts?: string;
  thread_ts?: string;
  reactions?: { name: string; users?: string[] }[];
  files?: SlackFile[];
  file?: SlackFile;
  edited?: { ts?: string };
}

/** Messages about membership and channel changes, not conversation: the original's importer drops them too. */
const SKIPPED_SUBTYPES = new Set(['channel_join', 'channel_leave', 'group_join', 'group_leave', 'channel_name', 'group_name', 'channel_purpose', 'channel_topic', 'pinned_item', 'unpinned_item']);
/** Topic of channel messages outside any thread. */
export const SLACK_TOPIC = 'imported from Slack';
const MAX_TOPIC = 60;

const seconds = (ts: string | number | undefined): number => Math.floor(Number(ts ?? 0)) || 0;
const NO_FILES: SlackFile[] = [];

function roleOf(u: SlackUser): number {
  if (u.is_primary_owner || u.is_owner) return Role.OWNER;
  if (u.is_admin) return Role.ADMINISTRATOR;
  if (u.is_restricted || u.is_ultra_restricted) return Role.GUEST;
  return Role.MEMBER;
}

/** A thread's topic: the start of its first message, made unique per channel. */
function threadTopic(text: string, used: Set<string>): string {
  const words = text.replace(/\s+/g, ' ').trim() || 'thread';
  let base = words.length > MAX_TOPIC - 4 ? words.slice(0, MAX_TOPIC - 5) + '…' : words;
  if (base.toLowerCase() === SLACK_TOPIC) base = `${base} (thread)`;
  let topic = base;
  for (let i = 2; used.has(topic.toLowerCase()); i++) topic = `${base.slice(0, MAX_TOPIC - 5)} (${i})`;
  used.add(topic.toLowerCase());
  return topic;
}

export async function readSlack(dir: string): Promise<ImportBundle> {
  const users = (await readJson<SlackUser[]>(dir, 'users.json'))!;
  if (!Array.isArray(users)) throw new ImportError('users.json is not a list of users');
  const channels = (await readJson<SlackConversation[]>(dir, 'channels.json', true)) ?? [];
  const groups = (await readJson<SlackConversation[]>(dir, 'groups.json', true)) ?? [];
  const dms = (await readJson<SlackConversation[]>(dir, 'dms.json', true)) ?? [];
  const mpims = (await readJson<SlackConversation[]>(dir, 'mpims.json', true)) ?? [];
  const team = users.find((u) => (u as { team_id?: string }).team_id) as { team_id?: string } | undefined;
  const bundle = emptyBundle('Imported from Slack', (team?.team_id ?? 'slack').toLowerCase());

  const known = new Map(users.map((u) => [u.id, u]));
  const nameOf = (u: SlackUser) => (u.real_name || u.profile?.real_name || u.profile?.display_name || u.name || u.id).trim();
  for (const u of users) {
    bundle.users.push({
      key: u.id,
      email: u.profile?.email ?? null,
      fullName: nameOf(u),
      role: u.is_bot ? Role.MEMBER : roleOf(u),
      isBot: !!u.is_bot,
      isActive: !u.deleted,
      timezone: u.tz ?? '',
      dateJoined: seconds(u.updated),
    });
  }
  const channelNames = new Map<string, string>();
  for (const c of [...channels, ...groups]) channelNames.set(c.id, (c.name ?? c.id).slice(0, 60));
  const names: MrkdwnNames = { user: (id) => (known.has(id) ? nameOf(known.get(id)!) : undefined), channel: (id) => channelNames.get(id) };

  const attachmentKeysSeen = new Set<string>();
  const convert = async (conv: SlackConversation, folder: string, target: { channelKey?: string; dmUserKeys?: string[] }, members: Set<string>) => {
    const messages = await readDays(dir, folder);
    const byTs = new Map(messages.map((m) => [m.ts, m]));
    const topicsUsed = new Set<string>();
    const threadTopics = new Map<string, string>();
    for (const msg of messages) {
      if (msg.subtype && SKIPPED_SUBTYPES.has(msg.subtype)) {
        if (msg.user && known.has(msg.user) && msg.subtype.endsWith('_join')) members.add(msg.user);
        continue;
      }
      const sender = msg.user ?? (msg.file?.user || undefined);
      if (!sender) continue; // bot messages without a user (integrations posting as an app) have no account
      if (!known.has(sender)) throw new ImportError(`message ${msg.ts} in ${folder}/ refers to unknown user ID ${sender}`);
      if (target.channelKey) members.add(sender);
      let topic = '';
      if (target.channelKey) {
        if (msg.thread_ts) {
          const parent = byTs.get(msg.thread_ts);
          topic = threadTopics.get(msg.thread_ts) ?? threadTopic(parent ? mrkdwnToMarkdown(parent.text ?? '', names) : 'thread', topicsUsed);
          threadTopics.set(msg.thread_ts, topic);
        } else topic = SLACK_TOPIC;
      }
      const files = msg.files || msg.file ? [...(msg.files ?? []), ...(msg.file ? [msg.file] : [])] : NO_FILES;
      const attachmentKeys: string[] = [];
      for (const f of files) {
        const a = await localFile(dir, f, sender);
        if (a && !attachmentKeysSeen.has(a.key)) {
          attachmentKeysSeen.add(a.key);
          bundle.attachments.push(a);
        }
        if (a) attachmentKeys.push(a.key);
      }
      const m: ImportMessage = {
        key: `${folder}/${msg.ts}`,
        senderKey: sender,
        ...target,
        topic,
        content: mrkdwnToMarkdown(msg.text ?? '', names),
        dateSent: seconds(msg.ts),
        reactions: !msg.reactions ? [] : msg.reactions.flatMap((r) => (r.users ?? []).filter((u) => known.has(u)).map((u) => ({ userKey: u, emojiName: slackEmojiName(r.name) }))),
        attachmentKeys: attachmentKeys.length ? attachmentKeys : undefined,
        lastEditTime: msg.edited?.ts ? seconds(msg.edited.ts) : null,
      };
      bundle.messages.push(m);
    }
  };

  for (const [list, inviteOnly] of [
    [channels, false],
    [groups, true],
  ] as const) {
    for (const c of list) {
      // Members Slack lists but the export's users.json lacks (shared channels, other workspaces) are left out.
      const members = new Set((c.members ?? []).filter((id) => known.has(id)));
      const name = channelNames.get(c.id)!;
      const channel = {
        key: c.id,
        name,
        description: c.purpose?.value ?? '',
        inviteOnly,
        isArchived: !!c.is_archived,
        isDefault: !!c.is_general,
        dateCreated: seconds(c.created),
        creatorKey: c.creator && known.has(c.creator) ? c.creator : null,
        subscribers: [] as { userKey: string }[],
      };
      bundle.channels.push(channel);
      await convert(c, c.name ?? c.id, { channelKey: c.id }, members);
      channel.subscribers = [...members].map((userKey) => ({ userKey }));
    }
  }
  for (const [list, byName] of [
    [dms, false],
    [mpims, true],
  ] as const) {
    for (const c of list) {
      const members = [...new Set((c.members ?? []).filter((id) => known.has(id)))];
      if (!members.length) continue;
      await convert(c, byName ? (c.name ?? c.id) : c.id, { dmUserKeys: members }, new Set());
    }
  }
  return bundle;
}

/** Slack writes skin tones as "name::skin-tone-2"; the emoji's base name is what the name table has. */
function slackEmojiName(name: string): string {
  const base = name.split('::')[0];
  return base === 'thumbsup' ? '+1' : base === 'thumbsdown' ? '-1' : base;
}

/** Every file of a conversation's daily files, oldest first; a conversation without a folder has none. */
async function readDays(dir: string, folder: string): Promise<SlackMessage[]> {
  const full = path.join(dir, folder);
  const days = await fsp.readdir(full).catch(() => null);
  if (!days) return [];
  const out: SlackMessage[] = [];
  for (const day of days.filter((d) => d.endsWith('.json')).sort()) {
    // Named with its folder, so an error says which conversation's file is damaged.
    const list = await readJson<SlackMessage[]>(dir, path.join(folder, day));
    if (!Array.isArray(list)) throw new ImportError(`${folder}/${day} is not a list of messages`);
    out.push(...list.filter((m) => m.type === 'message' || m.type === undefined));
  }
  // Sorted by time once each (a comparator parsing both timestamps cost a tenth of reading a large export).
  const keyed = out.map((m) => ({ t: Number(m.ts), m }));
  keyed.sort((a, b) => a.t - b.t);
  return keyed.map((k) => k.m);
}

/**
 * A shared file, when the export holds its bytes (Slack's "__uploads/<file id>/<name>"); exports
 * made without files only have private URLs that need the workspace's token, and keep their link.
 */
async function localFile(dir: string, f: SlackFile, owner: string): Promise<ImportAttachment | null> {
  if (!f.id || !f.name) return null;
  const file = path.join(dir, '__uploads', f.id, f.name);
  const exists = await fsp.stat(file).then(
    (s) => s.isFile(),
    () => false,
  );
  if (!exists) return null;
  return { key: f.id, ownerKey: f.user ?? owner, fileName: f.name, sourceFile: file, contentType: f.mimetype ?? 'application/octet-stream', createTime: f.created ?? 0 };
}
