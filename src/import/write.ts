// Stores an ImportBundle as a new organization in one transaction: IDs remapped, rows bulk-inserted,
// messages rendered as if sent, unread floors and first-message IDs set; upload files cleaned up on failure.
import fs from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { sql, type Insertable, type Transaction } from 'kysely';
import type { AppContext } from '../context.js';
import type { DB, Realm } from '../store/schema.js';
import { insertRealmRows, SUBDOMAIN_RE } from '../actions/realms.js';
import { SYSTEM_BOT_KINDS, systemBot } from '../actions/system-bots.js';
import { insertStream, pickStreamColor } from '../lib/streams-create.js';
import { systemGroupIds } from '../lib/groups.js';
import { directSystemGroupsForRole } from '../models/system-groups.js';
import { Role } from '../models/roles.js';
import { newApiKey } from '../lib/secrets.js';
import { defaultAvatarSource } from '../lib/avatars.js';
import { realmHostName } from '../lib/users.js';
import { getOrCreateDmRecipient } from '../lib/messages/recipients.js';
import { renderStreamDescription } from '../lib/streams/names.js';
import { CONTENT_TYPES, imageExtension, emojiUrl } from '../lib/realm-emoji.js';
import { newPathId, newUrlSecret } from '../lib/uploads.js';
import { emojiFileKey, uploadFileKey } from '../lib/storage/keys.js';
import { realmUrl as realmUrlOf } from '../lib/state/realm.js';
import { renderContextFrom } from '../lib/markdown/index.js';
import { insertMany } from './bulk.js';
import { ImportError, type ImportBundle, type SubscriptionNotification } from './bundle.js';
import { validateBundle } from './validate.js';
import { writeMessages, type MessageWriteContext } from './write-messages.js';
import { writeExtras } from './write-extras.js';
import { dropIndexesForImport, restoreIndexes } from './deferred-indexes.js';
import { writeAvatars, writeRealmSettings, writeScheduledMessages, type SettingsWriteContext } from './write-settings.js';

export interface ImportOptions {
  subdomain?: string;
  name?: string;
  /** Called with (done, total) as messages are written. */
  progress?: (done: number, total: number) => void;
}

export interface ImportCounts {
  realm_id: number;
  subdomain: string;
  users: number;
  bots: number;
  channels: number;
  subscriptions: number;
  messages: number;
  direct_messages: number;
  reactions: number;
  /** Reactions with an emoji the import has no image or name for. */
  reactions_skipped: number;
  attachments: number;
  custom_emoji: number;
  user_groups: number;
  avatars: number;
  scheduled_messages: number;
}

/** A Slack-style name made safe as an address's local part. */
function localPart(name: string, n: number): string {
  const base = name
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/^[-.]+|[-.]+$/g, '');
  return base || `user${n}`;
}

export async function importBundle(app: AppContext, bundle: ImportBundle, opts: ImportOptions = {}): Promise<ImportCounts> {
  const subdomain = (opts.subdomain ?? bundle.subdomain).trim().toLowerCase();
  if (!SUBDOMAIN_RE.test(subdomain)) throw new ImportError(`subdomain "${subdomain}" may contain only lowercase letters, digits and dashes`);
  const existing = await app.store.db.selectFrom('realms').select('id').where('string_id', '=', subdomain).executeTakeFirst();
  if (existing) throw new ImportError(`an organization with subdomain "${subdomain}" already exists; nothing was imported`);
  validateBundle(bundle);
  const name = (opts.name ?? bundle.name).trim() || subdomain || 'Imported organization';
  const now = app.clock.now();
  // Files are written during the transaction (their keys go into rows); on failure they are removed
  // (the database store's rows roll back with the transaction anyway).
  const written: string[] = [];
  try {
    const target: ImportTarget = { subdomain, name, now, written, opts };
    const { result } = await app.store.write((tx) => writeAll(app, tx, bundle, target));
    app.caches.invalidateRealms();
    const realm = await app.store.db.selectFrom('realms').selectAll().where('id', '=', result.realm_id).executeTakeFirstOrThrow();
    for (const kind of SYSTEM_BOT_KINDS) await systemBot(app, realm, kind);
    // SQLite: the search index catches up with the imported messages before the command ends.
    if (result.maxMessageId) {
      app.search.noteCommitted(result.maxMessageId);
      await app.search.catchUp();
    }
    return result.counts;
  } catch (err) {
    for (const key of written) await app.files.delete(key).catch(() => undefined);
    throw err;
  }
}

/** The new organization's names and time, the storage keys written so far (removed on failure), and the caller's options. */
interface ImportTarget {
  subdomain: string;
  name: string;
  now: number;
  written: string[];
  opts: ImportOptions;
}

async function writeAll(app: AppContext, tx: Transaction<DB>, bundle: ImportBundle, target: ImportTarget): Promise<{ counts: ImportCounts; realm_id: number; maxMessageId: number }> {
  // A large import touches far more index pages than the server's usual 32 MB cache holds: its own
  // connection keeps them in memory while it runs (the setting is per connection, restored after).
  const sqlite = app.store.dialect === 'sqlite';
  const cacheSize = sqlite ? (await sql<{ cache_size: number }>`PRAGMA cache_size`.execute(tx)).rows[0].cache_size : 0;
  if (sqlite && bundle.messages.length > IMPORT_CACHE_THRESHOLD) await sql`PRAGMA cache_size = -262144`.execute(tx);
  try {
    // SQLite: a large import builds the messages indexes once at the end (deferred-indexes.ts).
    const dropped = sqlite ? await dropIndexesForImport(tx, bundle.messages.length) : [];
    const written = await writeRows(app, tx, bundle, target);
    await restoreIndexes(tx, dropped);
    return written;
  } finally {
    if (sqlite) await sql.raw(`PRAGMA cache_size = ${Number(cacheSize)}`).execute(tx);
  }
}

/** Imports with more messages than this get the larger page cache (256 MB) while they run. */
const IMPORT_CACHE_THRESHOLD = 10_000;

async function writeRows(app: AppContext, tx: Transaction<DB>, bundle: ImportBundle, target: ImportTarget): Promise<{ counts: ImportCounts; realm_id: number; maxMessageId: number }> {
  const { subdomain, name, now, written, opts } = target;
  const realm = await insertRealmRows(tx, subdomain, name, bundle.dateCreated ?? now);
  if (bundle.description) await tx.updateTable('realms').set({ description: bundle.description }).where('id', '=', realm.id).execute();
  const userIds = await writeUsers(app, tx, realm, bundle);
  const { channelIds, subscriptions } = await writeChannels(tx, realm, bundle, userIds);
  const emoji = await writeEmoji(app, tx, realm, bundle, userIds, written);
  const attachments = await writeAttachments(app, tx, realm, bundle, userIds, written);

  const users = bundle.users.map((u) => ({ id: userIds.get(u.key)!, full_name: u.fullName }));
  const renderCtx = renderContextFrom(users, {
    streams: bundle.channels.map((c) => ({ id: channelIds.get(c.key)!.id, name: c.name })),
    realmEmoji: emoji.rows.map((e) => ({ id: String(e.id), name: e.name, url: emojiUrl({ realm_id: realm.id, file_name: e.file_name }) })),
    linkifiers: bundle.linkifiers.map((l, i) => ({ id: i + 1, pattern: l.pattern, url_template: l.urlTemplate })),
    realmUrl: realmUrlOf(app.config.externalUrl, realm.string_id),
  });
  const ctx: MessageWriteContext = { tx, dialect: app.store.dialect, realm, userIds, channelIds, subscriptions, attachments, emojiCodes: emoji.codes, renderCtx, progress: opts.progress };
  const m = await writeMessages(ctx, bundle);
  const groupIds = await writeExtras(tx, realm, bundle, userIds, channelIds, now);
  const settingsCtx: SettingsWriteContext = { tx, realm, files: app.files, userIds, channelIds, groupIds, renderCtx, written };
  await writeRealmSettings(settingsCtx, bundle);
  const avatars = await writeAvatars(settingsCtx, bundle);
  const scheduled = await writeScheduledMessages(settingsCtx, bundle);
  const kinds = new Set<string>(SYSTEM_BOT_KINDS);
  const systemBots = (bundle.systemBots ?? []).filter((b) => kinds.has(b.kind) && userIds.has(b.userKey));
  await insertMany(tx, 'realm_system_bots', systemBots.map((b) => ({ realm_id: realm.id, kind: b.kind, user_id: userIds.get(b.userKey)! })));

  const bots = bundle.users.filter((u) => u.isBot).length;
  return {
    realm_id: realm.id,
    maxMessageId: m.maxId,
    counts: {
      realm_id: realm.id,
      subdomain,
      users: bundle.users.length - bots,
      bots,
      channels: bundle.channels.length,
      subscriptions: [...subscriptions.values()].reduce((n, s) => n + s.size, 0),
      messages: m.channelMessages,
      direct_messages: m.directMessages,
      reactions: m.reactions,
      reactions_skipped: m.reactionsSkipped,
      attachments: attachments.size,
      custom_emoji: emoji.rows.length,
      user_groups: groupIds.size,
      avatars,
      scheduled_messages: scheduled,
    },
  };
}

/** Source user key → new user ID. People are stub accounts: no password, and a new API key nobody knows until they log in. */
async function writeUsers(app: AppContext, tx: Transaction<DB>, realm: Realm, bundle: ImportBundle): Promise<Map<string, number>> {
  const host = realmHostName(app.config.externalUrl, realm);
  const used = new Set<string>();
  // API keys are unique server-wide: a bot whose key is already in use (the same export imported twice) gets a new one.
  const carried = bundle.users.map((u) => u.apiKey).filter((k): k is string => !!k);
  const taken = new Set(carried.length ? (await tx.selectFrom('users').select('api_key').where('api_key', 'in', carried).execute()).map((r) => r.api_key) : []);
  // An organization needs an owner: without one in the export, its first active administrator (else first active person) becomes it.
  const owner = bundle.users.some((u) => u.role === Role.OWNER && !u.isBot)
    ? null
    : (bundle.users.find((u) => !u.isBot && u.isActive && u.role === Role.ADMINISTRATOR) ?? bundle.users.find((u) => !u.isBot && u.isActive));
  const roleOf = (u: ImportBundle['users'][number]) => (u === owner ? Role.OWNER : u.role);
  const rows = bundle.users.map((u, n) => {
    let email = u.email?.trim() || `${localPart(u.fullName, n)}@${host}`;
    // The same address twice (or a placeholder colliding) gets a numbered local part.
    for (let i = 2; used.has(email.toLowerCase()); i++) email = email.replace(/(\+\d+)?@/, `+${i}@`);
    used.add(email.toLowerCase());
    const stub = u.isStub ?? !u.isBot;
    return {
      realm_id: realm.id,
      email,
      delivery_email: email,
      email_key: email.toLowerCase(),
      full_name: u.fullName.trim().slice(0, 100) || `User ${n + 1}`,
      password_hash: null,
      api_key: u.apiKey && !taken.has(u.apiKey) ? u.apiKey : newApiKey(),
      role: roleOf(u),
      is_active: u.isActive ? 1 : 0,
      is_bot: u.isBot ? 1 : 0,
      bot_type: u.isBot ? (u.botType ?? 1) : null,
      bot_owner_id: null,
      date_joined: u.dateJoined,
      timezone: u.timezone,
      avatar_source: defaultAvatarSource(realm),
      avatar_version: 1,
      is_imported_stub: stub ? 1 : 0,
      is_deleted: 0,
      settings: u.settings ?? '{}',
    };
  });
  await insertMany(tx, 'users', rows);
  const ids = new Map<string, number>();
  const byEmail = new Map((await tx.selectFrom('users').select(['id', 'email_key']).where('realm_id', '=', realm.id).execute()).map((r) => [r.email_key, r.id]));
  bundle.users.forEach((u, i) => ids.set(u.key, byEmail.get(rows[i].email_key)!));
  for (const u of bundle.users) {
    if (u.isBot && u.botOwnerKey && ids.has(u.botOwnerKey)) await tx.updateTable('users').set({ bot_owner_id: ids.get(u.botOwnerKey)! }).where('id', '=', ids.get(u.key)!).execute();
  }
  const groups = await systemGroupIds(tx, realm.id);
  const memberships = bundle.users.flatMap((u) => directSystemGroupsForRole(roleOf(u)).map((g) => ({ group_id: groups[g], user_id: ids.get(u.key)! })));
  await insertMany(tx, 'user_group_members', memberships);
  return ids;
}

export interface ChannelRef {
  id: number;
  recipientId: number;
}

async function writeChannels(
  tx: Transaction<DB>,
  realm: Realm,
  bundle: ImportBundle,
  userIds: Map<string, number>,
): Promise<{ channelIds: Map<string, ChannelRef>; subscriptions: Map<number, Set<number>> }> {
  const channelIds = new Map<string, ChannelRef>();
  const subscriptions = new Map<number, Set<number>>();
  const subRows: Insertable<DB['subscriptions']>[] = [];
  const perUser = new Map<number, number>();
  for (const c of bundle.channels) {
    const s = await insertStream(tx, {
      realmId: realm.id,
      name: c.name,
      description: c.description,
      renderedDescription: renderStreamDescription(c.description),
      inviteOnly: c.inviteOnly,
      // As in Slack and Mattermost, a private channel's whole history is readable by its subscribers,
      // including people added later; the original's export says per channel.
      historyPublicToSubscribers: c.historyPublic ?? true,
      isWebPublic: false,
      creatorId: c.creatorKey ? (userIds.get(c.creatorKey) ?? null) : null,
      messageRetentionDays: c.messageRetentionDays ?? null,
      topicsPolicy: 'inherit',
      permissions: {},
      now: c.dateCreated,
    });
    if (c.isArchived) await tx.updateTable('streams').set({ is_archived: 1 }).where('id', '=', s.id).execute();
    if (c.isDefault) await tx.insertInto('default_streams').values({ realm_id: realm.id, stream_id: s.id }).execute();
    channelIds.set(c.key, { id: s.id, recipientId: s.recipient_id });
    const active = new Set<number>();
    const seen = new Set<number>();
    for (const sub of c.subscribers) {
      const userId = userIds.get(sub.userKey)!;
      if (seen.has(userId)) continue;
      seen.add(userId);
      const n = perUser.get(userId) ?? 0;
      perUser.set(userId, n + 1);
      const isActive = sub.active ?? true;
      if (isActive) active.add(userId);
      const notify = (k: SubscriptionNotification) => (typeof sub.notifications?.[k] === 'boolean' ? (sub.notifications[k] ? 1 : 0) : null);
      subRows.push({
        user_id: userId,
        stream_id: s.id,
        active: isActive ? 1 : 0,
        is_muted: sub.isMuted ? 1 : 0,
        pin_to_top: sub.pinToTop ? 1 : 0,
        color: sub.color ?? pickStreamColor(n),
        desktop_notifications: notify('desktop_notifications'),
        email_notifications: notify('email_notifications'),
        push_notifications: notify('push_notifications'),
        audible_notifications: notify('audible_notifications'),
        wildcard_mentions_notify: notify('wildcard_mentions_notify'),
      });
    }
    subscriptions.set(s.id, active);
  }
  // Floors are set once the messages are in (write-messages.ts); user_active copies users.is_active.
  await insertMany(tx, 'subscriptions', subRows);
  await sql`UPDATE subscriptions SET user_active = (SELECT u.is_active FROM users u WHERE u.id = subscriptions.user_id)
    WHERE stream_id IN (SELECT id FROM streams WHERE realm_id = ${realm.id})`.execute(tx);
  return { channelIds, subscriptions };
}

/** Custom emoji: images in the app's file store, rows; returns name → emoji code. */
async function writeEmoji(app: AppContext, tx: Transaction<DB>, realm: Realm, bundle: ImportBundle, userIds: Map<string, number>, written: string[]) {
  const rows: { id: number; name: string; file_name: string }[] = [];
  const codes = new Map<string, string>();
  if (!bundle.emoji.length) return { rows, codes };
  for (const e of bundle.emoji) {
    const data = await readSourceFile(e.sourceFile, `custom emoji "${e.name}"`);
    const ext = imageExtension(data);
    const fileName = `${Date.now()}-${randomBytes(4).toString('hex')}.${ext}`;
    const key = emojiFileKey(realm.id, fileName);
    written.push(key);
    await app.files.put(key, data, CONTENT_TYPES[ext], tx);
    const row = await tx
      .insertInto('realm_emoji')
      .values({ realm_id: realm.id, name: e.name, file_name: fileName, author_id: e.authorKey ? (userIds.get(e.authorKey) ?? null) : null, deactivated: e.deactivated ? 1 : 0 })
      .returning(['id', 'name', 'file_name'])
      .executeTakeFirstOrThrow();
    rows.push(row);
    if (!e.deactivated) codes.set(e.name, String(row.id));
  }
  return { rows, codes };
}

export interface WrittenAttachment {
  id: number;
  pathId: string;
  fileName: string;
  oldPathId?: string;
}

async function writeAttachments(app: AppContext, tx: Transaction<DB>, realm: Realm, bundle: ImportBundle, userIds: Map<string, number>, written: string[]): Promise<Map<string, WrittenAttachment>> {
  const out = new Map<string, WrittenAttachment>();
  for (const a of bundle.attachments) {
    const data = await readSourceFile(a.sourceFile, `attachment "${a.fileName}"`);
    const pathId = newPathId(realm.id, a.fileName);
    const key = uploadFileKey(pathId);
    written.push(key);
    await app.files.put(key, data, a.contentType, tx);
    const row = await tx
      .insertInto('attachments')
      .values({ realm_id: realm.id, owner_id: userIds.get(a.ownerKey)!, path_id: pathId, file_name: a.fileName, size: data.length, content_type: a.contentType, create_time: a.createTime, url_secret: newUrlSecret() })
      .returning('id')
      .executeTakeFirstOrThrow();
    out.set(a.key, { id: row.id, pathId, fileName: a.fileName, oldPathId: a.oldPathId });
  }
  return out;
}

async function readSourceFile(file: string, what: string): Promise<Buffer> {
  try {
    return await fs.readFile(file);
  } catch {
    throw new ImportError(`the export refers to a missing file for ${what}: ${file}`);
  }
}

/** The conversation of a direct message between these users (created on first use). */
export function dmRecipient(tx: Transaction<DB>, realmId: number, userIds: number[]): Promise<number> {
  return getOrCreateDmRecipient(tx, realmId, userIds);
}
