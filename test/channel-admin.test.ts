// Channel administration: POST /channels/create, PATCH and DELETE /streams/{id}, subscriber reads,
// PATCH /users/me/subscriptions, default channels and channel folders — success, refusals, bad input.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type Client, type TestServer } from './helpers/server.js';

let s: TestServer;
let admin: Client;
let ann: Client;
let ben: Client;
let guest: Client;
before(async () => {
  s = await startTestServer();
  admin = await s.user('Ada Admin', 200);
  ann = await s.user('Ann Member');
  ben = await s.user('Ben Member');
  guest = await s.user('Gus Guest', 600);
});
after(async () => {
  await s.close();
});

const channel = async (c: Client, id: number) => (await c.ok('GET', `streams/${id}`)).stream;

test('POST /channels/create: creates, subscribes the listed users, refuses duplicates and bad input', async () => {
  const r = await ann.ok('POST', 'channels/create', { name: 'garden', description: 'Plants **and** soil', subscribers: [ann.userId, ben.userId] });
  const got = await channel(ann, r.id);
  assert.equal(got.name, 'garden');
  assert.equal(got.creator_id, ann.userId);
  assert.match(got.rendered_description, /<strong>and<\/strong>/);
  assert.deepEqual((await ann.ok('GET', `streams/${r.id}/members`)).subscribers, [ann.userId, ben.userId].sort((a, b) => a - b));

  const dup = await ben.post('channels/create', { name: 'GARDEN', subscribers: [] });
  assert.equal(dup.status, 409);
  assert.equal(dup.body.code, 'CHANNEL_ALREADY_EXISTS');
  const missing = await ben.post('channels/create', { name: 'nosubs' });
  assert.equal(missing.body.code, 'REQUEST_VARIABLE_MISSING');
  const badList = await ben.post('channels/create', { name: 'badlist', subscribers: '[1, "x"]' });
  assert.equal(badList.status, 400);
  const empty = await ben.post('channels/create', { name: '  ', subscribers: [] });
  assert.equal(empty.body.msg, "Channel name can't be empty.");
  const nobody = await ben.post('channels/create', { name: 'ghosts', subscribers: [987654] });
  assert.equal(nobody.body.msg, 'No such user');
  const g = await guest.post('channels/create', { name: 'guesthouse', subscribers: [] });
  assert.equal(g.status, 400);
  assert.equal(g.body.msg, 'Insufficient permission');
  const retention = await ben.post('channels/create', { name: 'kept', subscribers: [], message_retention_days: 30 });
  assert.equal(retention.body.msg, 'Must be an organization owner');
  const bad = await s.owner.post('channels/create', { name: 'kept', subscribers: [], message_retention_days: 'forever' });
  assert.equal(bad.status, 400);
});

test('POST /channels/create: private channel with settings, and the default flag for administrators only', async () => {
  const r = await admin.ok('POST', 'channels/create', { name: 'vault', subscribers: [admin.userId], invite_only: true, history_public_to_subscribers: true, is_default_stream: false });
  const got = await channel(admin, r.id);
  assert.equal(got.invite_only, true);
  assert.equal(got.history_public_to_subscribers, true);
  // Ann cannot see the private channel at all.
  const hidden = await ann.get(`streams/${r.id}/members`);
  assert.equal(hidden.body.msg, 'Invalid channel ID');
  const notAdmin = await ann.post('channels/create', { name: 'lobby2', subscribers: [], is_default_stream: true });
  assert.equal(notAdmin.body.msg, 'Must be an organization administrator');
  const d = await admin.ok('POST', 'channels/create', { name: 'lobby', subscribers: [], is_default_stream: true });
  const reg = await ann.ok('POST', 'register', { fetch_event_types: ['default_streams'] });
  assert.ok(reg.realm_default_streams.includes(d.id));
});

test('PATCH /streams/{id}: rename, description, privacy and permissions; refusals', async () => {
  const { id } = await ann.ok('POST', 'channels/create', { name: 'workshop', subscribers: [ann.userId] });
  // Members do not administer channels unless in can_administer_channel_group.
  const refused = await ann.patch(`streams/${id}`, { new_name: 'shop' });
  assert.equal(refused.status, 400);
  assert.equal(refused.body.msg, 'You do not have permission to administer this channel.');
  await admin.ok('PATCH', `streams/${id}`, { can_administer_channel_group: JSON.stringify({ new: { direct_members: [ann.userId], direct_subgroups: [] } }) });
  await ann.ok('PATCH', `streams/${id}`, { new_name: 'shop', description: 'Tools *here*' });
  const got = await channel(ann, id);
  assert.equal(got.name, 'shop');
  assert.match(got.rendered_description, /<em>here<\/em>/);
  assert.deepEqual(got.can_administer_channel_group, { direct_members: [ann.userId], direct_subgroups: [] });

  const taken = await ann.patch(`streams/${id}`, { new_name: 'garden' });
  assert.equal(taken.body.code, 'CHANNEL_ALREADY_EXISTS');
  const nothing = await ann.patch(`streams/${id}`, {});
  assert.equal(nothing.body.msg, 'No new data supplied');
  const wrongOld = await ann.patch(`streams/${id}`, { can_send_message_group: JSON.stringify({ new: 1, old: 999999 }) });
  assert.equal(wrongOld.body.msg, "'old' value does not match the expected value.");
  const badJson = await ann.patch(`streams/${id}`, { folder_id: 'abc' });
  assert.equal(badJson.status, 400);
  const unknown = await admin.patch('streams/999999', { description: 'x' });
  assert.equal(unknown.body.msg, 'Invalid channel ID');
  const retention = await ann.patch(`streams/${id}`, { message_retention_days: 'unlimited' });
  assert.equal(retention.body.msg, 'Must be an organization owner');
  await s.owner.ok('PATCH', `streams/${id}`, { message_retention_days: 'unlimited' });
  assert.equal((await channel(ann, id)).message_retention_days, -1);

  // Making it private: Ben (not subscribed) no longer sees it; public again: he does.
  await ann.ok('PATCH', `streams/${id}`, { is_private: true });
  assert.equal((await ben.get(`streams/${id}`)).body.msg, 'Invalid channel ID');
  const noHistory = await ann.patch(`streams/${id}`, { is_private: false, history_public_to_subscribers: false });
  assert.equal(noHistory.body.msg, 'Invalid parameters');
  // Protected history needs can_create_topic_group role:everyone at creation too (the reference).
  const groups = (await admin.ok('GET', 'user_groups')).user_groups as { id: number; name: string }[];
  const members = groups.find((g) => g.name === 'role:members')!.id;
  const everyone = groups.find((g) => g.name === 'role:everyone')!.id;
  const closed = await admin.post('channels/create', { name: 'closed-topics', subscribers: [admin.userId], invite_only: true, can_create_topic_group: members });
  assert.deepEqual([closed.status, closed.body.msg], [400, 'Invalid parameters']);
  const viaSubscribe = await admin.post('users/me/subscriptions', { subscriptions: [{ name: 'closed-topics' }], invite_only: true, can_create_topic_group: members });
  assert.deepEqual([viaSubscribe.status, viaSubscribe.body.msg], [400, 'Invalid parameters']);
  const open = await admin.ok('POST', 'channels/create', { name: 'closed-topics', subscribers: [admin.userId], invite_only: true, can_create_topic_group: everyone });
  // A channel already in that state (from before this rule, or an import) can still be renamed and described.
  const app = s.running.app;
  const row = await app.store.db.selectFrom('streams').select('permissions').where('id', '=', open.id).executeTakeFirstOrThrow();
  await app.store.db.updateTable('streams').set({ permissions: JSON.stringify({ ...JSON.parse(row.permissions), can_create_topic_group: members }) }).where('id', '=', open.id).execute();
  await admin.ok('PATCH', `streams/${open.id}`, { description: 'Still editable' });
  await ann.ok('PATCH', `streams/${id}`, { is_private: false });
  assert.equal((await channel(ben, id)).invite_only, false);
  const spectators = await ann.patch(`streams/${id}`, { is_web_public: true });
  assert.equal(spectators.body.msg, 'Web-public channels are not enabled.');
});

test('DELETE /streams/{id} archives; PATCH is_archived=false unarchives; only administrators', async () => {
  const { id } = await admin.ok('POST', 'channels/create', { name: 'attic', subscribers: [admin.userId, ben.userId], is_default_stream: true });
  const refused = await ben.delete(`streams/${id}`);
  assert.equal(refused.body.msg, 'You do not have permission to administer this channel.');
  await admin.ok('DELETE', `streams/${id}`);
  assert.equal((await channel(ben, id)).is_archived, true);
  const again = await admin.delete(`streams/${id}`);
  assert.equal(again.body.msg, 'Channel is already archived.');
  const reg = await ben.ok('POST', 'register', { fetch_event_types: ['default_streams', 'subscription'] });
  assert.ok(!reg.realm_default_streams.includes(id), 'an archived channel is no default channel');
  assert.ok(!reg.subscriptions.some((x: any) => x.stream_id === id), 'hidden from clients without archived_channels');
  const archive = await admin.patch(`streams/${id}`, { is_archived: true });
  assert.equal(archive.status, 400);
  // Nor may PATCH put an archived channel back among the defaults (POST /default_streams refuses it too).
  const defaulted = await admin.patch(`streams/${id}`, { is_default_stream: true });
  assert.deepEqual([defaulted.status, defaulted.body.msg], [400, 'Archived channels cannot be made default.']);
  assert.equal((await admin.post('default_streams', { stream_id: id })).body.msg, 'Archived channels cannot be made default.');
  await admin.ok('PATCH', `streams/${id}`, { is_archived: false });
  assert.equal((await channel(ben, id)).is_archived, false);
  const notArchived = await admin.patch(`streams/${id}`, { is_archived: false });
  assert.equal(notArchived.body.msg, 'Channel is not archived.');
});

test('subscriber reads: members, a user\'s channels and one subscription, limited to what the viewer sees', async () => {
  const open = await ann.ok('POST', 'channels/create', { name: 'porch', subscribers: [ann.userId, ben.userId] });
  const secret = await admin.ok('POST', 'channels/create', { name: 'cellar', subscribers: [admin.userId, ben.userId], invite_only: true });
  const benSees = (await ben.ok('GET', `users/${ben.userId}/channels`)).subscribed_channel_ids as number[];
  assert.ok(benSees.includes(open.id) && benSees.includes(secret.id));
  const annSees = (await ann.ok('GET', `users/${ben.userId}/channels`)).subscribed_channel_ids as number[];
  assert.ok(annSees.includes(open.id));
  assert.ok(!annSees.includes(secret.id), 'a private channel Ann cannot see is not listed');
  assert.equal((await ann.ok('GET', `users/${ben.userId}/subscriptions/${open.id}`)).is_subscribed, true);
  assert.equal((await ann.ok('GET', `users/${guest.userId}/subscriptions/${open.id}`)).is_subscribed, false);
  assert.equal((await ann.get(`users/${ben.userId}/subscriptions/${secret.id}`)).body.msg, 'Invalid channel ID');
  assert.equal((await ann.get(`users/999999/channels`)).body.msg, 'No such user');
  assert.equal((await guest.get(`streams/${open.id}/members`)).body.msg, 'Invalid channel ID');
  assert.deepEqual((await admin.ok('GET', `streams/${secret.id}/members`)).subscribers, [admin.userId, ben.userId].sort((a, b) => a - b));
});

test('PATCH /users/me/subscriptions: adds and removes in one request', async () => {
  await ann.ok('POST', 'channels/create', { name: 'deck', subscribers: [ann.userId] });
  const r = await ann.ok('PATCH', 'users/me/subscriptions', { add: [{ name: 'porch' }, { name: 'brand new', color: '#abcdef', description: 'made here' }], delete: ['deck'] });
  assert.deepEqual(r.already_subscribed[String(ann.userId)], ['porch']);
  assert.deepEqual(r.subscribed[String(ann.userId)], ['brand new']);
  assert.deepEqual(r.removed, ['deck']);
  assert.deepEqual(r.not_removed, []);
  const subs = (await ann.ok('GET', 'users/me/subscriptions')).subscriptions as any[];
  assert.equal(subs.find((x) => x.name === 'brand new').color, '#abcdef');
  assert.ok(!subs.some((x) => x.name === 'deck'));
  const nothing = await ann.patch('users/me/subscriptions', {});
  assert.equal(nothing.body.msg, "Nothing to do. Specify at least one of 'add' or 'delete'.");
  const unknown = await ann.patch('users/me/subscriptions', { add: [{ name: 'never made' }], delete: ['no such channel'] });
  assert.equal(unknown.body.code, 'STREAM_DOES_NOT_EXIST');
  assert.ok(!((await ann.ok('GET', 'users/me/subscriptions')).subscriptions as any[]).some((x) => x.name === 'never made'), 'a refused request changes nothing');
  const badColor = await ann.patch('users/me/subscriptions', { add: [{ name: 'porch', color: 'red' }] });
  assert.equal(badColor.body.msg, 'color is not a valid hex color code');
  const badShape = await ann.patch('users/me/subscriptions', { add: [{ title: 'x' }] });
  assert.equal(badShape.status, 400);
});

test('default channels: administrators add and remove; private ones refused', async () => {
  const { id } = await ann.ok('POST', 'channels/create', { name: 'foyer', subscribers: [] });
  const refused = await ann.post('default_streams', { stream_id: id });
  assert.equal(refused.body.msg, 'Must be an organization administrator');
  await admin.ok('POST', 'default_streams', { stream_id: id });
  let reg = await ben.ok('POST', 'register', { fetch_event_types: ['default_streams'] });
  assert.ok(reg.realm_default_streams.includes(id));
  await admin.ok('DELETE', 'default_streams', { stream_id: id });
  reg = await ben.ok('POST', 'register', { fetch_event_types: ['default_streams'] });
  assert.ok(!reg.realm_default_streams.includes(id));
  const secret = await admin.ok('POST', 'channels/create', { name: 'closet', subscribers: [admin.userId], invite_only: true });
  assert.equal((await admin.post('default_streams', { stream_id: secret.id })).body.msg, 'Private channels cannot be made default.');
  assert.equal((await admin.post('default_streams', { stream_id: 999999 })).body.msg, 'Invalid channel ID');
  assert.equal((await admin.post('default_streams', {})).body.code, 'REQUEST_VARIABLE_MISSING');
});

test('channel folders: create, list, update, archive, reorder, and put channels in them', async () => {
  const refused = await ann.post('channel_folders/create', { name: 'Nope' });
  assert.equal(refused.body.code, 'UNAUTHORIZED_PRINCIPAL');
  const a = (await admin.ok('POST', 'channel_folders/create', { name: 'Frontend', description: 'UI **work**' })).channel_folder_id;
  const b = (await admin.ok('POST', 'channel_folders/create', { name: 'Backend' })).channel_folder_id;
  assert.equal((await admin.post('channel_folders/create', { name: 'frontend' })).status, 400);
  assert.equal((await admin.post('channel_folders/create', { name: '' })).status, 400);
  let list = (await ann.ok('GET', 'channel_folders')).channel_folders as any[];
  assert.deepEqual(list.map((f) => f.name), ['Frontend', 'Backend']);
  assert.match(list[0].rendered_description, /<strong>work<\/strong>/);

  const { id } = await ann.ok('POST', 'channels/create', { name: 'widgets', subscribers: [ann.userId], folder_id: a });
  assert.equal((await channel(ann, id)).folder_id, a);
  await admin.ok('PATCH', `streams/${id}`, { folder_id: 'null' });
  assert.equal((await channel(ann, id)).folder_id, null);
  assert.equal((await admin.patch(`streams/${id}`, { folder_id: 999999 })).body.msg, 'Invalid channel folder ID');

  await admin.ok('PATCH', 'channel_folders', { order: [b, a] });
  list = (await ann.ok('GET', 'channel_folders')).channel_folders as any[];
  assert.deepEqual(list.map((f) => f.id), [b, a]);
  assert.equal((await admin.patch('channel_folders', { order: [a] })).body.msg, 'Invalid order mapping');

  await admin.ok('PATCH', `channel_folders/${b}`, { name: 'Servers', is_archived: true });
  list = (await ann.ok('GET', 'channel_folders')).channel_folders as any[];
  assert.deepEqual(list.map((f) => f.name), ['Frontend']);
  list = (await ann.ok('GET', 'channel_folders', { include_archived: true })).channel_folders as any[];
  assert.deepEqual(list.map((f) => [f.name, f.is_archived]), [['Servers', true], ['Frontend', false]]);
  assert.equal((await admin.patch(`streams/${id}`, { folder_id: b })).body.msg, 'Cannot add channel to an archived folder.');
  assert.equal((await admin.patch('channel_folders/999999', { name: 'x' })).body.msg, 'Invalid channel folder ID');
  assert.equal((await ann.patch(`channel_folders/${a}`, { name: 'x' })).body.code, 'UNAUTHORIZED_PRINCIPAL');
  assert.equal((await admin.patch(`channel_folders/${a}`, {})).body.msg, 'No new data supplied');
});
