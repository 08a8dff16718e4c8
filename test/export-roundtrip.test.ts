// parley export writes the original's format; importing that export gives an organization with the same
// rows and content (users, channels, subscriptions, messages and their flags, reactions, uploads, emoji, groups…).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { startTestServer, type TestServer } from './helpers/server.js';
import { postFiles } from './helpers/multipart.js';
import { uploadEmoji } from './helpers/emoji.js';
import { uploadAvatar } from './helpers/avatars.js';
import { runExport } from '../src/export/command.js';
import { runImport } from '../src/import/command.js';
import { runCli } from '../src/cli.js';

let s: TestServer;
let tmp: string;
before(async () => {
  s = await startTestServer();
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-roundtrip-'));
});
after(async () => {
  await s.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

const db = () => s.running.app.store.db;

/** Everything a client could see of an organization, with IDs replaced by names so two organizations compare. */
async function snapshot(subdomain: string) {
  const realm = await db().selectFrom('realms').selectAll().where('string_id', '=', subdomain).executeTakeFirstOrThrow();
  const users = await db().selectFrom('users').selectAll().where('realm_id', '=', realm.id).orderBy('full_name').execute();
  const name = new Map(users.map((u) => [u.id, u.full_name]));
  const streams = await db().selectFrom('streams').selectAll().where('realm_id', '=', realm.id).orderBy('name').execute();
  const streamName = new Map(streams.map((st) => [st.id, st.name]));
  const messages = await db().selectFrom('messages').selectAll().where('realm_id', '=', realm.id).orderBy('id').execute();
  const ids = messages.map((m) => m.id);
  const ums = await db().selectFrom('user_messages').selectAll().where('message_id', 'in', ids).execute();
  const reactions = await db().selectFrom('reactions').selectAll().where('message_id', 'in', ids).execute();
  const groups = await db().selectFrom('direct_message_groups').selectAll().where('realm_id', '=', realm.id).execute();
  const dmNames = new Map(groups.map((g) => [g.recipient_id, g.user_ids_key.split(',').map((id) => name.get(Number(id))).sort().join('+')]));
  const emoji = await db().selectFrom('realm_emoji').selectAll().where('realm_id', '=', realm.id).execute();
  const emojiName = new Map(emoji.map((e) => [String(e.id), e.name]));
  const attachments = await db().selectFrom('attachments').selectAll().where('realm_id', '=', realm.id).execute();
  // Rendered HTML names users, uploads and emoji by ID and path: replace them by what they stand for.
  const neutral = (html: string) =>
    html
      .replace(/data-user-id="(\d+)"/g, (_, id: string) => `data-user="${name.get(Number(id))}"`)
      .replace(/\/user_uploads\/[^"\s)]+\/([^/"\s)]+)/g, '/user_uploads/…/$1')
      .replace(/\/user_avatars\/\d+\/emoji\/images\/[^"]+/g, '/emoji');
  const subs = await db().selectFrom('subscriptions').selectAll().where('stream_id', 'in', streams.map((st) => st.id)).execute();
  // Settings name groups and channels by ID: replace them by their names.
  const groupName = new Map((await db().selectFrom('user_groups').select(['id', 'name']).where('realm_id', '=', realm.id).execute()).map((g) => [g.id, g.name]));
  const realmSettings = Object.fromEntries(
    Object.entries(JSON.parse(realm.settings) as Record<string, unknown>)
      .map(([k, v]) => [k, k.endsWith('_group') || k === 'can_create_groups' || k === 'can_manage_all_groups' ? groupName.get(v as number) : k === 'moderation_request_channel_id' ? streamName.get(v as number) : v])
      .sort(),
  );
  const scheduled = await db().selectFrom('scheduled_messages').selectAll().where('realm_id', '=', realm.id).orderBy('scheduled_at').execute();
  const defaults = await db().selectFrom('realm_user_defaults').select('settings').where('realm_id', '=', realm.id).executeTakeFirst();
  return {
    realm: [realm.name],
    realmSettings,
    userDefaults: defaults ? JSON.parse(defaults.settings) : {},
    userSettings: users.map((u) => [u.full_name, JSON.parse(u.settings), u.avatar_source === 'U']),
    scheduled: scheduled.map((m) => [name.get(m.user_id), m.kind, m.kind === 'stream' ? streamName.get(m.stream_id!) : (JSON.parse(m.to_user_ids!) as number[]).map((id) => name.get(id)).sort(), m.topic, m.content, neutral(m.rendered_content), m.scheduled_at, m.read_by_sender]),
    users: users.map((u) => [u.full_name, u.delivery_email, u.role, u.is_bot, u.is_active, u.bot_type]),
    streams: streams.map((st) => [st.name, st.description, st.invite_only, st.history_public_to_subscribers, st.message_retention_days, st.is_archived, st.first_message_id !== null]),
    subscriptions: subs.map((x) => [name.get(x.user_id), streamName.get(x.stream_id), x.active, x.color, x.is_muted, x.desktop_notifications, x.push_notifications, x.wildcard_mentions_notify]).sort(),
    messages: messages.map((m) => ({
      sender: name.get(m.sender_id),
      to: m.stream_id !== null ? streamName.get(m.stream_id) : dmNames.get(m.recipient_id),
      topic: m.topic,
      content: neutral(m.content),
      rendered: neutral(m.rendered_content),
      date_sent: m.date_sent,
      edited: m.last_edit_time,
      history: m.edit_history ? (JSON.parse(m.edit_history) as any[]).map((e) => ({ ...e, user_id: name.get(e.user_id) })) : null,
      flags: ums
        .filter((um) => um.message_id === m.id)
        .map((um) => `${name.get(um.user_id)}:${um.flags}`)
        .sort(),
      reactions: reactions
        .filter((r) => r.message_id === m.id)
        .map((r) => `${name.get(r.user_id)}:${r.reaction_type === 'realm_emoji' ? emojiName.get(r.emoji_code) : r.emoji_code}:${r.emoji_name}`)
        .sort(),
    })),
    attachments: attachments.map((a) => [name.get(a.owner_id), a.file_name, a.size, a.content_type]).sort(),
    emoji: emoji.map((e) => e.name).sort(),
    userGroups: (await db().selectFrom('user_groups').select(['name', 'description']).where('realm_id', '=', realm.id).where('is_system_group', '=', 0).where('name', 'is not', null).execute()).map((g) => [g.name, g.description]),
    linkifiers: (await db().selectFrom('realm_linkifiers').select(['pattern', 'url_template']).where('realm_id', '=', realm.id).execute()).map((l) => [l.pattern, l.url_template]),
    profileFields: (await db().selectFrom('custom_profile_fields').select(['name', 'type', 'hint']).where('realm_id', '=', realm.id).execute()).map((f) => [f.name, f.type, f.hint]),
    drafts: (await db().selectFrom('drafts').selectAll().where('user_id', 'in', [...name.keys()]).execute()).map((d) => [name.get(d.user_id), d.type, d.topic, d.content]),
    userTopics: (await db().selectFrom('user_topics').selectAll().where('user_id', 'in', [...name.keys()]).execute()).map((t) => [name.get(t.user_id), streamName.get(t.stream_id), t.topic, t.visibility_policy]),
  };
}

test('a Parley export imports into Parley with identical counts and content; files follow the original layout', async () => {
  const { owner: ann, realm } = await s.realm2('source');
  const host = 'source.localhost';
  const bob = await s.user('Bob Builder', 400, { realm, host });
  const cat = await s.user('Cat Stevens', 600, { realm, host });
  const annMe = await ann.ok('GET', 'users/me');
  await ann.ok('POST', 'users/me/subscriptions', { subscriptions: [{ name: 'design', description: 'Design talk' }], principals: [ann.userId, bob.userId] });
  await ann.ok('POST', 'users/me/subscriptions', { subscriptions: [{ name: 'secret' }], principals: [ann.userId, bob.userId, cat.userId], invite_only: true, history_public_to_subscribers: false });
  await uploadEmoji(ann, 'party_parrot', await sharp({ create: { width: 8, height: 8, channels: 4, background: '#f00' } }).png().toBuffer());
  const up = await postFiles(bob, 'user_uploads', [{ data: Buffer.from('meeting notes\n'), filename: 'notes.txt', contentType: 'text/plain' }]);
  assert.equal(up.status, 200);
  const m1 = await ann.ok('POST', 'messages', { type: 'stream', to: 'design', topic: 'colours', content: `hi @**${bob.email.split('@')[0]}** and @**Bob Builder** :party_parrot: **bold** #**secret**` });
  const m2 = await bob.ok('POST', 'messages', { type: 'stream', to: 'design', topic: 'colours', content: `notes: [notes.txt](${up.body.url})` });
  await cat.ok('POST', 'messages', { type: 'stream', to: 'secret', topic: 'plans', content: 'a secret plan' });
  await ann.ok('POST', 'messages', { type: 'private', to: [bob.userId], content: 'just us' });
  await ann.ok('POST', 'messages', { type: 'private', to: [ann.userId], content: 'note to self' });
  const m6 = await bob.ok('POST', 'messages', { type: 'private', to: [ann.userId, cat.userId], content: 'the three of us' });
  await bob.ok('POST', `messages/${m1.id}/reactions`, { emoji_name: 'party_parrot' });
  await bob.ok('POST', `messages/${m2.id}/reactions`, { emoji_name: '+1' });
  await cat.ok('POST', `messages/${m6.id}/reactions`, { emoji_name: 'heart' });
  await ann.ok('PATCH', `messages/${m1.id}`, { content: 'hi again, edited' });
  await bob.ok('POST', 'messages/flags', { messages: [m1.id], op: 'add', flag: 'starred' });
  await ann.ok('POST', 'user_groups/create', { name: 'designers', description: 'People who design', members: [ann.userId, bob.userId] });
  await ann.ok('POST', 'realm/filters', { pattern: '#(?P<id>[0-9]+)', url_template: 'https://example.com/issues/{id}' });
  await ann.ok('POST', 'realm/profile_fields', { name: 'Team', field_type: 1, hint: 'Your team' });
  await bob.ok('POST', 'drafts', { drafts: [{ type: 'stream', to: [(await bob.ok('GET', 'get_stream_id', { stream: 'design' })).stream_id], topic: 'later', content: 'draft text' }] });
  await bob.ok('POST', 'user_topics', { stream_id: (await bob.ok('GET', 'get_stream_id', { stream: 'design' })).stream_id, topic: 'colours', visibility_policy: 1 });
  assert.equal(annMe.role, 100);
  // Settings, an uploaded avatar and scheduled messages go out and come back too.
  const admins = (await db().selectFrom('user_groups').select('id').where('realm_id', '=', realm.id).where('name', '=', 'role:administrators').executeTakeFirstOrThrow()).id;
  const secretId = (await ann.ok('GET', 'get_stream_id', { stream: 'secret' })).stream_id;
  const designId = (await ann.ok('GET', 'get_stream_id', { stream: 'design' })).stream_id;
  await ann.ok('PATCH', 'realm', { message_content_edit_limit_seconds: JSON.stringify(3600), invite_required: true, digest_weekday: 4, can_invite_users_group: JSON.stringify({ new: admins }), moderation_request_channel_id: secretId });
  await ann.ok('PATCH', 'realm/user_settings_defaults', { twenty_four_hour_time: true, emojiset: 'text' });
  await bob.ok('PATCH', 'settings', { enter_sends: true, web_font_size_px: 18, default_language: 'de' });
  await bob.ok('POST', 'users/me/subscriptions/properties', { subscription_data: JSON.stringify([{ stream_id: designId, property: 'desktop_notifications', value: true }, { stream_id: designId, property: 'push_notifications', value: false }]) });
  await uploadAvatar(bob, await sharp({ create: { width: 40, height: 40, channels: 3, background: '#0a0' } }).png().toBuffer());
  const later = Math.floor(Date.now() / 1000) + 86400;
  await ann.ok('POST', 'scheduled_messages', { type: 'stream', to: designId, topic: 'tomorrow', content: 'good morning @**Bob Builder**', scheduled_delivery_timestamp: later });
  await bob.ok('POST', 'scheduled_messages', { type: 'direct', to: JSON.stringify([ann.userId]), content: 'later, just us', scheduled_delivery_timestamp: later + 60 });
  await cat.ok('POST', 'scheduled_messages', { type: 'direct', to: JSON.stringify([ann.userId, bob.userId]), content: 'a group that has not talked yet', scheduled_delivery_timestamp: later + 120 });

  const archive = path.join(tmp, 'source.tar.gz');
  const exported = await runExport(s.running.app, 'source', archive);
  assert.equal(exported.messages, 6);
  const dir = path.join(tmp, 'dir');
  await runExport(s.running.app, 'source', dir);
  // The original's documented layout.
  for (const f of ['realm.json', 'messages-000001.json', 'attachment.json', 'uploads/records.json', 'emoji/records.json', 'avatars/records.json']) assert.ok(fs.existsSync(path.join(dir, f)), f);
  const realmJson = JSON.parse(fs.readFileSync(path.join(dir, 'realm.json'), 'utf8'));
  for (const table of ['zerver_realm', 'zerver_userprofile', 'zerver_stream', 'zerver_subscription', 'zerver_recipient', 'zerver_reaction', 'zerver_realmemoji', 'zerver_realmfilter', 'zerver_customprofilefield', 'zerver_namedusergroup', 'zerver_usergroupmembership', 'zerver_draft', 'zerver_usertopic']) {
    assert.ok(Array.isArray(realmJson[table]), table);
  }
  assert.ok(realmJson.zerver_userprofile.every((u: any) => u.is_bot || u.api_key === undefined), "people's API keys stay out of the export");
  assert.equal(realmJson.zerver_scheduledmessage.length, 3);
  assert.equal(realmJson.zerver_realm[0].invite_required, true);
  assert.equal(realmJson.zerver_userprofile.find((u: any) => u.id === bob.userId).enter_sends, true);
  const avatars = JSON.parse(fs.readFileSync(path.join(dir, 'avatars', 'records.json'), 'utf8')) as { path: string; user_profile_id: number }[];
  assert.deepEqual(avatars.map((r) => r.path.replace(/[0-9a-f]{40}/, 'HASH')).sort(), [`${realm.id}/HASH-medium.png`, `${realm.id}/HASH.original`, `${realm.id}/HASH.png`]);
  assert.ok(avatars.every((r) => r.user_profile_id === bob.userId && fs.existsSync(path.join(dir, 'avatars', r.path))));

  const imported = await runImport(s.running.app, { format: 'zulip', path: archive, subdomain: 'copy', name: realm.name });
  assert.equal(imported.messages + imported.direct_messages, 6);
  const [a, b] = [await snapshot('source'), await snapshot('copy')];
  if (process.env.ROUNDTRIP_DUMP) fs.writeFileSync(process.env.ROUNDTRIP_DUMP, JSON.stringify({ a, b }, null, 1));
  assert.deepEqual(b, a);
  // Imported people are stubs; the server's bots are the same accounts, not new ones.
  const copies = await db().selectFrom('users').innerJoin('realms', 'realms.id', 'users.realm_id').select(['users.is_imported_stub', 'users.is_bot']).where('realms.string_id', '=', 'copy').execute();
  assert.ok(copies.every((u) => u.is_imported_stub === (u.is_bot ? 0 : 1)));
  const systemBots = (subdomain: string) =>
    db()
      .selectFrom('realm_system_bots')
      .innerJoin('realms', 'realms.id', 'realm_system_bots.realm_id')
      .innerJoin('users', 'users.id', 'realm_system_bots.user_id')
      .select(['realm_system_bots.kind', 'users.full_name'])
      .where('realms.string_id', '=', subdomain)
      .orderBy('kind')
      .execute();
  assert.deepEqual(await systemBots('copy'), await systemBots('source'));
});

test('the command line: export prints one JSON line, import of a directory prints its counts, a second import is refused', async () => {
  await s.realm2('cli-src');
  // The command line opens its own app on the test server's storage.
  const config = s.running.app.config;
  const st = ['--data-dir', config.dataDir, ...(config.databaseUrl ? ['--database-url', config.databaseUrl] : [])];
  const out: string[] = [];
  const dir = path.join(tmp, 'cli-export');
  assert.equal(await runCli(['export', '--realm', 'cli-src', dir, ...st], (l) => out.push(l)), 0);
  assert.equal(out.length, 1);
  assert.equal(JSON.parse(out[0]).messages, 0);
  assert.equal(await runCli(['import', '--format', 'zulip', dir, '--subdomain', 'cli-copy', ...st], (l) => out.push(l)), 0);
  assert.equal(JSON.parse(out[1]).subdomain, 'cli-copy');
  assert.equal(await runCli(['import', '--format', 'zulip', dir, '--subdomain', 'cli-copy', ...st], (l) => out.push(l)), 1);
  assert.equal(out.length, 2);
});
