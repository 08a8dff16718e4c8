// User groups: creating, listing, editing and deactivating groups, with permissions, errors and events.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Client, startTestServer, type TestServer } from './helpers/server.js';
import { expectError } from './helpers/assertions.js';
import { drainEvents } from './helpers/events.js';
import { systemGroupIds } from '../src/lib/groups.js';
import { Role } from '../src/models/roles.js';

let s: TestServer;
let ann: Client;
let bea: Client;
let gus: Client;
let sys: Record<string, number>;

before(async () => {
  s = await startTestServer();
  ann = await s.user('Ann Grouper');
  bea = await s.user('Bea Grouper');
  gus = await s.user('Gus Guest', Role.GUEST);
  sys = await s.running.app.store.read((tx) => systemGroupIds(tx, s.realm.id));
});
after(async () => {
  await s.close();
});

async function listed(c: Client, id: number, all = false): Promise<any> {
  const r = await c.ok('GET', 'user_groups', { include_deactivated_groups: all });
  return r.user_groups.find((g: any) => g.id === id);
}

let seq = 0;
const create = async (c: Client, extra: Record<string, unknown> = {}) =>
  (await c.ok('POST', 'user_groups/create', { name: `team ${++seq}`, description: 'A team', members: [c.userId], ...extra } as never)).group_id as number;

test('create: returns group_id, defaults permissions, sends the add event to everyone', async () => {
  const reg = await bea.ok('POST', 'register', { event_types: ['user_group'] });
  const id = (await ann.ok('POST', 'user_groups/create', { name: 'backend', description: 'Backend team', members: [ann.userId, bea.userId] })).group_id;
  assert.equal(typeof id, 'number');
  const g = await listed(ann, id);
  assert.equal(g.name, 'backend');
  assert.equal(g.description, 'Backend team');
  assert.deepEqual(g.members, [ann.userId, bea.userId].sort((a, b) => a - b));
  assert.deepEqual(g.direct_subgroup_ids, []);
  assert.equal(g.is_system_group, false);
  assert.equal(g.creator_id, ann.userId);
  assert.equal(g.deactivated, false);
  assert.deepEqual(g.can_manage_group, { direct_members: [ann.userId], direct_subgroups: [] });
  assert.deepEqual(g.can_add_members_group, { direct_members: [ann.userId], direct_subgroups: [] });
  assert.equal(g.can_join_group, sys['role:nobody']);
  assert.equal(g.can_leave_group, sys['role:everyone']);
  assert.equal(g.can_mention_group, sys['role:everyone']);
  assert.equal(g.can_remove_members_group, sys['role:nobody']);
  const events = (await drainEvents(bea, reg.queue_id)).filter((e) => e.type === 'user_group');
  assert.equal(events.length, 1);
  assert.equal(events[0].op, 'add');
  assert.deepEqual(events[0].group, g);
});

test('create: subgroups and permission settings, in form, query and multipart forms', async () => {
  const sub = await create(ann);
  const id = (
    await ann.ok('POST', 'user_groups/create', {
      name: 'with settings',
      description: '',
      members: [],
      subgroups: [sub],
      can_manage_group: sys['role:administrators'],
      can_mention_group: { direct_members: [bea.userId], direct_subgroups: [sub] },
      can_join_group: { direct_members: [], direct_subgroups: [sys['role:members']] },
    })
  ).group_id;
  const g = await listed(ann, id);
  assert.deepEqual(g.direct_subgroup_ids, [sub]);
  assert.equal(g.can_manage_group, sys['role:administrators']);
  assert.deepEqual(g.can_mention_group, { direct_members: [bea.userId], direct_subgroups: [sub] });
  assert.equal(g.can_join_group, sys['role:members']);
  for (const as of ['query', 'multipart'] as const) {
    const r = await ann.ok('POST', 'user_groups/create', { name: `form ${as}`, description: 'x', members: [bea.userId] }, { as });
    assert.deepEqual((await listed(ann, r.group_id)).members, [bea.userId]);
  }
});

test('create: errors', async () => {
  await expectError(ann.post('user_groups/create', { name: 'x', description: 'd', members: [99999] }), 'Invalid user ID: 99999');
  await expectError(ann.post('user_groups/create', { description: 'd', members: [] }), "Missing 'name' argument", 'REQUEST_VARIABLE_MISSING');
  await expectError(ann.post('user_groups/create', { name: 'x', members: [] }), "Missing 'description' argument", 'REQUEST_VARIABLE_MISSING');
  await expectError(ann.post('user_groups/create', { name: 'x', description: 'd' }), "Missing 'members' argument", 'REQUEST_VARIABLE_MISSING');
  await expectError(ann.post('user_groups/create', { name: 'x', description: 'd', members: 'nope' }), 'Argument "members" is not valid JSON.');
  await expectError(ann.post('user_groups/create', { name: 'backend', description: 'd', members: [] }), "User group 'backend' already exists.");
  await expectError(ann.post('user_groups/create', { name: 'role:mine', description: 'd', members: [] }), "User group name cannot start with 'role:'.");
  await expectError(ann.post('user_groups/create', { name: 'y'.repeat(101), description: 'd', members: [] }), 'User group name cannot exceed 100 characters.');
  await expectError(ann.post('user_groups/create', { name: 'x', description: 'd', members: [], subgroups: [99999] }), 'Invalid user group');
  const cases: [string, string][] = [
    ['can_manage_group', 'role:everyone'],
    ['can_manage_group', 'role:internet'],
    ['can_mention_group', 'role:owners'],
    ['can_mention_group', 'role:internet'],
    ['can_join_group', 'role:internet'],
  ];
  for (const [setting, group] of cases) {
    await expectError(ann.post('user_groups/create', { name: 'x', description: 'd', members: [], [setting]: sys[group] }), `'${setting}' setting cannot be set to '${group}' group.`);
  }
  await expectError(
    ann.post('user_groups/create', { name: 'x', description: 'd', members: [], can_manage_group: { direct_members: [], direct_subgroups: [sys['role:everyone'], sys['role:owners']] } }),
    "'can_manage_group' setting cannot be set to 'role:everyone' group.",
  );
  await expectError(ann.post('user_groups/create', { name: 'x', description: 'd', members: [], can_manage_group: 99999 }), 'Invalid user group');
  // Nothing of the refused requests was created.
  const r = await ann.ok('GET', 'user_groups', { include_deactivated_groups: true });
  assert.ok(!r.user_groups.some((g: any) => g.name === 'x'));
});

test('create: permissions (guests, can_create_groups, bots) and organization isolation', async () => {
  await expectError(gus.post('user_groups/create', { name: 'guests', description: '', members: [] }), 'Not allowed for guest users');
  // Only administrators may create groups once the organization says so.
  await s.running.app.store.write(async (tx) => {
    const settings = { ...JSON.parse(s.realm.settings), can_create_groups: sys['role:administrators'] };
    await tx.updateTable('realms').set({ settings: JSON.stringify(settings) }).where('id', '=', s.realm.id).execute();
  });
  s.running.app.caches.invalidateRealms();
  try {
    await expectError(ann.post('user_groups/create', { name: 'denied', description: '', members: [] }), 'Insufficient permission');
    await s.owner.ok('POST', 'user_groups/create', { name: 'allowed', description: '', members: [] });
  } finally {
    await s.running.app.store.write((tx) => tx.updateTable('realms').set({ settings: s.realm.settings }).where('id', '=', s.realm.id).execute());
    s.running.app.caches.invalidateRealms();
  }
  // Bots may create groups (FL 496).
  const bot = await ann.ok('POST', 'bots', { full_name: 'Group Bot', short_name: 'groupbot' });
  const row = await s.running.app.store.read((tx) => tx.selectFrom('users').select('email').where('id', '=', bot.user_id).executeTakeFirstOrThrow());
  const botClient = new Client(s, bot.user_id, row.email, bot.api_key);
  const made = await botClient.ok('POST', 'user_groups/create', { name: 'bot made', description: '', members: [bot.user_id] });
  assert.equal((await listed(ann, made.group_id)).creator_id, bot.user_id);
  // Another organization's users and groups are unknown here.
  const other = await s.realm2('groups2');
  await expectError(other.owner.post('user_groups/create', { name: 'x', description: '', members: [ann.userId] }), `Invalid user ID: ${ann.userId}`);
  await expectError(other.owner.post('user_groups/create', { name: 'x', description: '', members: [], subgroups: [sys['role:members']] }), 'Invalid user group');
  const theirs = await other.owner.ok('GET', 'user_groups');
  assert.ok(theirs.user_groups.every((g: any) => g.id !== sys['role:members']));
});

test('GET /user_groups: system groups, include_deactivated_groups, guests refused', async () => {
  const r = await ann.ok('GET', 'user_groups');
  const members = r.user_groups.find((g: any) => g.name === 'role:members');
  assert.equal(members.is_system_group, true);
  assert.ok(members.members.includes(ann.userId));
  await expectError(gus.get('user_groups'), 'Not allowed for guest users');
  const id = await create(ann);
  await ann.ok('POST', `user_groups/${id}/deactivate`);
  assert.equal(await listed(ann, id), undefined);
  assert.equal((await listed(ann, id, true)).deactivated, true);
});

test('PATCH: name, description and settings in the old/new form, with one update event', async () => {
  const id = await create(ann);
  const reg = await bea.ok('POST', 'register', { event_types: ['user_group'] });
  await ann.ok('PATCH', `user_groups/${id}`, {
    name: 'renamed team',
    description: 'New words',
    can_mention_group: { new: { direct_members: [bea.userId], direct_subgroups: [] }, old: sys['role:everyone'] },
    can_join_group: { new: sys['role:members'] },
  });
  const g = await listed(ann, id);
  assert.equal(g.name, 'renamed team');
  assert.equal(g.description, 'New words');
  assert.deepEqual(g.can_mention_group, { direct_members: [bea.userId], direct_subgroups: [] });
  assert.equal(g.can_join_group, sys['role:members']);
  const events = (await drainEvents(bea, reg.queue_id)).filter((e) => e.type === 'user_group');
  assert.deepEqual(events.map((e) => ({ ...e, id: 0 })), [
    {
      id: 0,
      type: 'user_group',
      op: 'update',
      group_id: id,
      data: { name: 'renamed team', description: 'New words', can_join_group: sys['role:members'], can_mention_group: { direct_members: [bea.userId], direct_subgroups: [] } },
    },
  ]);
  // Unchanged values are no update and no event.
  await ann.ok('PATCH', `user_groups/${id}`, { name: 'renamed team', can_join_group: { new: { direct_members: [], direct_subgroups: [sys['role:members']] } } });
  assert.equal((await drainEvents(bea, reg.queue_id, events[events.length - 1].id)).filter((e) => e.type === 'user_group').length, 0);
});

test('PATCH: errors and permissions', async () => {
  const id = await create(ann);
  await expectError(ann.patch(`user_groups/${id}`, {}), 'No new data supplied');
  await expectError(ann.patch(`user_groups/${id}`, { can_mention_group: { new: sys['role:members'], old: sys['role:nobody'] } }), "'old' value does not match the expected value.");
  await expectError(ann.patch(`user_groups/${id}`, { can_manage_group: { new: sys['role:everyone'] } }), "'can_manage_group' setting cannot be set to 'role:everyone' group.");
  await expectError(ann.patch(`user_groups/${id}`, { can_manage_group: sys['role:members'] }), 'can_manage_group is not a dict');
  await expectError(ann.patch(`user_groups/${id}`, { can_manage_group: { old: 1 } }), 'can_manage_group["new"] is missing');
  await expectError(ann.patch(`user_groups/${id}`, { name: 'backend' }), "User group 'backend' already exists.");
  await expectError(ann.patch('user_groups/99999', { name: 'zzz' }), 'Invalid user group');
  await expectError(ann.patch(`user_groups/${sys['role:members']}`, { description: 'mine' }), 'Insufficient permission');
  // Bea is not in can_manage_group; the owner manages every group (can_manage_all_groups).
  await expectError(bea.patch(`user_groups/${id}`, { description: 'hers' }), 'Insufficient permission');
  await expectError(gus.patch(`user_groups/${id}`, { description: 'his' }), 'Not allowed for guest users');
  await s.owner.ok('PATCH', `user_groups/${id}`, { description: 'by the owner' });
  // Granting Bea can_manage_group lets her edit.
  await ann.ok('PATCH', `user_groups/${id}`, { can_manage_group: { new: { direct_members: [ann.userId, bea.userId], direct_subgroups: [] } } });
  await bea.ok('PATCH', `user_groups/${id}`, { description: 'hers now' });
  const other = await s.realm2('groups3');
  await expectError(other.owner.patch(`user_groups/${id}`, { description: 'foreign' }), 'Invalid user group');
});

test('deactivate and reactivate: events per client capability, errors, objections', async () => {
  const id = await create(ann);
  const modern = await bea.ok('POST', 'register', { event_types: ['user_group'], client_capabilities: { include_deactivated_groups: true } });
  const legacy = await bea.ok('POST', 'register', { event_types: ['user_group'], client_capabilities: {} });
  await expectError(bea.post(`user_groups/${id}/deactivate`), 'Insufficient permission');
  await expectError(ann.post(`user_groups/${sys['role:members']}/deactivate`), 'Insufficient permission');
  await expectError(ann.post('user_groups/99999/deactivate'), 'Invalid user group');
  await ann.ok('POST', `user_groups/${id}/deactivate`);
  await expectError(ann.post(`user_groups/${id}/deactivate`), 'User group is already deactivated.');
  const m = (await drainEvents(bea, modern.queue_id)).filter((e) => e.type === 'user_group');
  const l = (await drainEvents(bea, legacy.queue_id)).filter((e) => e.type === 'user_group');
  assert.deepEqual(m.map((e) => [e.op, e.data]), [['update', { deactivated: true }]]);
  assert.deepEqual(l.map((e) => [e.op, e.group_id]), [['remove', id]]);
  // Deactivated groups cannot be used in settings or as subgroups.
  await expectError(ann.post('user_groups/create', { name: 'uses it', description: '', members: [], can_mention_group: id }), 'Invalid user group');
  await expectError(ann.post('user_groups/create', { name: 'uses it', description: '', members: [], subgroups: [id] }), 'Invalid user group');
  await ann.ok('PATCH', `user_groups/${id}`, { deactivated: false });
  const m2 = (await drainEvents(bea, modern.queue_id, m[m.length - 1].id)).filter((e) => e.type === 'user_group');
  const l2 = (await drainEvents(bea, legacy.queue_id, l[l.length - 1].id)).filter((e) => e.type === 'user_group');
  assert.deepEqual(m2.map((e) => [e.op, e.data]), [['update', { deactivated: false }]]);
  assert.deepEqual(l2.map((e) => [e.op, e.group.id, e.group.deactivated]), [['add', id, false]]);

  // In use: as another group's setting and subgroup, and as a channel permission.
  const user = await create(ann, { subgroups: [id], can_mention_group: id });
  const body = await expectError(ann.post(`user_groups/${id}/deactivate`), 'Cannot deactivate user group in use.', 'CANNOT_DEACTIVATE_GROUP_IN_USE');
  assert.deepEqual(body.objections, [{ type: 'user_group', group_id: user, settings: ['can_mention_group', 'direct_subgroup_ids'] }]);
});
