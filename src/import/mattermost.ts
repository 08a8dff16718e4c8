// Mattermost bulk export (JSON lines: team, channel, user, post, direct_channel, direct_post, emoji, with a
// data/ folder of attachments) → ImportBundle for one team: channels, DMs, replies as topics, reactions, roles.
import fsp from 'node:fs/promises';
import path from 'node:path';
import { Role } from '../models/roles.js';
import { emptyBundle, ImportError, type ImportBundle, type ImportMessage } from './bundle.js';

interface MmReaction {
  user: string;
  emoji_name: string;
}
interface MmReply {
  user: string;
  message: string;
  create_at: number;
  reactions?: MmReaction[] | null;
  attachments?: { path: string }[] | null;
}
interface MmPost extends MmReply {
  team?: string;
  channel?: string;
  channel_members?: string[];
  replies?: MmReply[] | null;
  flagged_by?: string[] | null;
}
interface MmUser {
  username: string;
  email?: string;
  first_name?: string;
  last_name?: string;
  nickname?: string;
  roles?: string;
  delete_at?: number;
  teams?: { name: string; roles?: string; channels?: { name: string; roles?: string }[] | null }[] | null;
}
interface MmChannel {
  team: string;
  name: string;
  display_name?: string;
  type?: string;
  header?: string;
  purpose?: string;
}

/** Topic of posts without replies. */
export const MATTERMOST_TOPIC = 'imported from Mattermost';
const MAX_TOPIC = 60;

const CONTENT_TYPES: Record<string, string> = { png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', gif: 'image/gif', webp: 'image/webp', pdf: 'application/pdf', txt: 'text/plain' };

/** The export's lines by type, with a clear error for a damaged line. */
async function readLines(file: string): Promise<Map<string, unknown[]>> {
  let text: string;
  try {
    text = await fsp.readFile(file, 'utf8');
  } catch {
    throw new ImportError(`the export has no ${path.basename(file)}`);
  }
  const byType = new Map<string, unknown[]>();
  text.split('\n').forEach((line, i) => {
    if (!line.trim()) return;
    let obj: { type?: string } & Record<string, unknown>;
    try {
      obj = JSON.parse(line) as typeof obj;
    } catch (err) {
      throw new ImportError(`${path.basename(file)} line ${i + 1} is not valid JSON (${err instanceof Error ? err.message : String(err)}); is the export truncated?`);
    }
    const type = String(obj.type);
    if (!byType.has(type)) byType.set(type, []);
    byType.get(type)!.push(obj[type]);
  });
  return byType;
}

function roleOf(u: MmUser, team: string): number {
  const system = (u.roles ?? '').split(/\s+/);
  const teamRoles = (u.teams ?? []).find((t) => t.name === team)?.roles?.split(/\s+/) ?? [];
  if (system.includes('system_admin')) return Role.OWNER;
  if (teamRoles.includes('team_admin')) return Role.ADMINISTRATOR;
  if (system.includes('system_guest') || teamRoles.includes('team_guest')) return Role.GUEST;
  return Role.MEMBER;
}

function topicOf(text: string, used: Set<string>): string {
  const words = text.replace(/\s+/g, ' ').replace(/[\u0000-\u001f]/g, '').trim() || 'thread';
  const base = words.length > MAX_TOPIC - 4 ? words.slice(0, MAX_TOPIC - 5) + '…' : words;
  let topic = base;
  for (let i = 2; used.has(topic.toLowerCase()); i++) topic = `${base.slice(0, MAX_TOPIC - 5)} (${i})`;
  used.add(topic.toLowerCase());
  return topic;
}

export async function readMattermost(dir: string, teamName?: string): Promise<ImportBundle> {
  const lines = await readLines(path.join(dir, 'export.json'));
  const teams = (lines.get('team') ?? []) as { name: string; display_name?: string; description?: string }[];
  if (!teams.length) throw new ImportError('export.json holds no team');
  const team = teamName ? teams.find((t) => t.name === teamName) : teams.length === 1 ? teams[0] : undefined;
  if (!team) throw new ImportError(teamName ? `no team "${teamName}" in the export (teams: ${teams.map((t) => t.name).join(', ')})` : `the export holds several teams; pick one with --team (${teams.map((t) => t.name).join(', ')})`);
  const bundle = emptyBundle(team.display_name || team.name, team.name.toLowerCase().replace(/[^a-z0-9-]/g, '-'));
  bundle.description = team.description ?? '';

  const allUsers = (lines.get('user') ?? []) as MmUser[];
  const byName = new Map(allUsers.map((u) => [u.username, u]));
  const inTeam = new Set(allUsers.filter((u) => (u.teams ?? []).some((t) => t.name === team.name)).map((u) => u.username));
  const channels = ((lines.get('channel') ?? []) as MmChannel[]).filter((c) => c.team === team.name);
  const posts = ((lines.get('post') ?? []) as MmPost[]).filter((p) => p.team === team.name);
  // Direct conversations belong to no team: those with a member of this team come along.
  const directPosts = ((lines.get('direct_post') ?? []) as MmPost[]).filter((p) => (p.channel_members ?? []).some((m) => inTeam.has(m)));

  // People outside the team who posted or reacted here come along as deactivated accounts, as in the original's importer.
  const referenced = new Set(inTeam);
  const need = (username: string, where: string) => {
    if (!byName.has(username)) throw new ImportError(`${where} refers to unknown user ${username}`);
    referenced.add(username);
  };
  for (const p of [...posts, ...directPosts]) {
    const where = `the post of ${p.create_at}`;
    need(p.user, where);
    for (const m of p.channel_members ?? []) need(m, where);
    for (const r of [...(p.replies ?? []), p]) {
      need(r.user, where);
      for (const x of r.reactions ?? []) need(x.user, where);
    }
  }
  for (const u of allUsers) {
    if (!referenced.has(u.username)) continue;
    const fullName = [u.first_name, u.last_name].filter(Boolean).join(' ').trim() || u.nickname || u.username;
    bundle.users.push({ key: u.username, email: u.email ?? null, fullName, role: roleOf(u, team.name), isBot: false, isActive: inTeam.has(u.username) && !u.delete_at, timezone: '', dateJoined: 0 });
  }

  const channelKey = (name: string) => `${team.name}/${name}`;
  const displayNames = new Map(channels.map((c) => [c.name, (c.display_name || c.name).slice(0, 60)]));
  for (const c of channels) {
    const members = allUsers.filter((u) => (u.teams ?? []).find((t) => t.name === team.name)?.channels?.some((ch) => ch.name === c.name)).map((u) => u.username);
    bundle.channels.push({
      key: channelKey(c.name),
      name: displayNames.get(c.name)!,
      description: c.purpose ?? '',
      inviteOnly: c.type === 'P',
      isArchived: false,
      isDefault: false,
      dateCreated: 0,
      subscribers: members.map((userKey) => ({ userKey })),
    });
  }

  const fullNames = new Map(bundle.users.map((u) => [u.key, u.fullName]));
  const convert = (text: string) =>
    text
      .replace(/(^|[^\w@])@([a-z0-9._-]+)/gi, (all, pre: string, name: string) => (fullNames.has(name) ? `${pre}@**${fullNames.get(name)}**` : all))
      .replace(/(^|\s)~([a-z0-9_-]+)/gi, (all, pre: string, name: string) => (displayNames.has(name) ? `${pre}#**${displayNames.get(name)}**` : all));

  let attachmentCount = 0;
  const attach = (p: MmReply): string[] =>
    (p.attachments ?? []).map((a) => {
      const key = `attachment-${++attachmentCount}`;
      const fileName = path.basename(a.path);
      const ext = fileName.split('.').pop()!.toLowerCase();
      bundle.attachments.push({ key, ownerKey: p.user, fileName, sourceFile: path.join(dir, 'data', a.path), contentType: CONTENT_TYPES[ext] ?? 'application/octet-stream', createTime: Math.floor(p.create_at / 1000) });
      return key;
    });
  const message = (p: MmReply, key: string, target: Pick<ImportMessage, 'channelKey' | 'dmUserKeys'>, topic: string): ImportMessage => ({
    key,
    senderKey: p.user,
    ...target,
    topic,
    content: convert(p.message ?? ''),
    dateSent: Math.floor(p.create_at / 1000),
    reactions: (p.reactions ?? []).map((r) => ({ userKey: r.user, emojiName: r.emoji_name })),
    attachmentKeys: attach(p),
  });

  const topicsUsed = new Map<string, Set<string>>();
  let n = 0;
  for (const p of posts) {
    if (!displayNames.has(p.channel!)) throw new ImportError(`a post of ${p.create_at} refers to unknown channel ${p.channel}`);
    const target = { channelKey: channelKey(p.channel!) };
    const used = topicsUsed.get(target.channelKey) ?? new Set<string>([MATTERMOST_TOPIC.toLowerCase()]);
    topicsUsed.set(target.channelKey, used);
    const topic = p.replies?.length ? topicOf(p.message ?? '', used) : MATTERMOST_TOPIC;
    bundle.messages.push(message(p, `post-${++n}`, target, topic));
    for (const r of p.replies ?? []) bundle.messages.push(message(r, `post-${++n}`, target, topic));
  }
  for (const p of directPosts) {
    const target = { dmUserKeys: [...new Set(p.channel_members!)] };
    bundle.messages.push(message(p, `post-${++n}`, target, ''));
    for (const r of p.replies ?? []) bundle.messages.push(message(r, `post-${++n}`, target, ''));
  }

  for (const e of (lines.get('emoji') ?? []) as { name: string; image: string }[]) bundle.emoji.push({ name: e.name, sourceFile: path.join(dir, e.image) });
  return bundle;
}
