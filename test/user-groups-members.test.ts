// User group membership: members and subgroups added and removed under the group's permission settings.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type Client, type TestServer } from './helpers/server.js';
import { expectError } from './helpers/assertions.js';
import { drainEvents } from './helpers/events.js';
import { systemGroupIds } from '../src/lib/groups.js';
import { Role } from '../src/models/roles.js';

let s: TestServer;
let ann: Client;
let bea: Client;
let cal: Client;
let gus: Client;
let sys: Record<string, number>;

before(async () => {
  s = await startTestServer();
  ann = await s.user('Ann Member');
  bea = await s.user('Bea Member');
  cal = await s.user('Cal Member');
  gus = await s.user('Gus Guest', Role.GUEST);
  sys = await s.running.app.store.read((tx) => systemGroupIds(tx, s.realm.id));
});
after(async () => {
  await s.close();
});

let seq = 0;
const create = async (c: Client, extra: Record<string, unknown> = {}) =>
  (await c.ok('POST', 'user_groups/create', { name: `crew ${++seq}`, description: '', members: [], ...extra } as never)).group_id as number;
const members = async (id: number, direct = false) => (await ann.ok('GET', `user_groups/${id}/members`, { direct_member_only: direct })).members;
const subgroups = async (id: number, direct = false) => (await ann.ok('GET', `user_groups/${id}/subgroups`, { direct_subgroup_only: direct })).subgroups;
const sorted = (ids: number[]) => [...ids].sort((a, b) => a - b);

test('members: add and delete with events to every active user', async () => {
  const id = await create(ann, { members: [ann.userId] });
  const reg = await gus.ok('POST', 'register', { event_types: ['user_group'] });
  await ann.ok('POST', `user_groups/${id}/members`, { add: [cal.userId, bea.userId], delete: [ann.userId] });
  assert.deepEqual(await members(id), sorted([bea.userId, cal.userId]));
  const events = (await drainEvents(gus, reg.queue_id)).filter((e) => e.type === 'user_group');
  assert.deepEqual(events.map((e) => [e.op, e.group_id, e.user_ids]), [
    ['add_members', id, sorted([bea.userId, cal.userId])],
    ['remove_members', id, [ann.userId]],
  ]);
  for (const as of ['query', 'multipart'] as const) {
    await ann.ok('POST', `user_groups/${id}/members`, { add: [ann.userId] }, { as });
    await ann.ok('POST', `user_groups/${id}/members`, { delete: [ann.userId] }, { as });
  }
});

test('members: errors', async () => {
  const id = await create(ann, { members: [ann.userId] });
  await expectError(ann.post(`user_groups/${id}/members`, {}), "Nothing to do. Specify at least one of 'add', 'delete', 'add_subgroups' or 'delete_subgroups'.");
  await expectError(ann.post(`user_groups/${id}/members`, { add: [ann.userId] }), `User ${ann.userId} is already a member of this group`);
  await expectError(ann.post(`user_groups/${id}/members`, { delete: [bea.userId] }), `There is no member '${bea.userId}' in this user group`);
  await expectError(ann.post(`user_groups/${id}/members`, { add: [99999] }), 'Invalid user ID: 99999');
  await expectError(ann.post(`user_groups/${id}/members`, { add: 'x' }), 'Argument "add" is not valid JSON.');
  await expectError(ann.post('user_groups/99999/members', { add: [bea.userId] }), 'Invalid user group');
  await expectError(ann.post(`user_groups/${sys['role:members']}/members`, { add: [gus.userId] }), 'Insufficient permission');
  await expectError(s.owner.post(`user_groups/${sys['role:administrators']}/members`, { add: [bea.userId] }), 'Insufficient permission');
  const other = await s.realm2('members2');
  await expectError(other.owner.post(`user_groups/${id}/members`, { add: [other.owner.userId] }), 'Invalid user group');
  // One bad entry changes nothing.
  await expectError(ann.post(`user_groups/${id}/members`, { add: [bea.userId, 99999] }), 'Invalid user ID: 99999');
  assert.deepEqual(await members(id), [ann.userId]);
});

test('members: add, join, leave and remove permissions; managers and can_manage_all_groups', async () => {
  const id = await create(ann, { members: [ann.userId] });
  // Defaults: the creator adds; nobody joins; everyone leaves; nobody else removes.
  await expectError(bea.post(`user_groups/${id}/members`, { add: [bea.userId] }), 'Insufficient permission');
  await expectError(bea.post(`user_groups/${id}/members`, { add: [cal.userId] }), 'Insufficient permission');
  await expectError(gus.post(`user_groups/${id}/members`, { add: [gus.userId] }), 'Not allowed for guest users');
  await ann.ok('POST', `user_groups/${id}/members`, { add: [bea.userId, cal.userId] });
  await bea.ok('POST', `user_groups/${id}/members`, { delete: [bea.userId] });
  await expectError(bea.post(`user_groups/${id}/members`, { delete: [cal.userId] }), 'Insufficient permission');
  // can_join_group lets Bea join herself; with can_leave_group nobody she cannot leave.
  await ann.ok('PATCH', `user_groups/${id}`, { can_join_group: { new: sys['role:members'] }, can_leave_group: { new: sys['role:nobody'] } });
  await bea.ok('POST', `user_groups/${id}/members`, { add: [bea.userId] });
  await expectError(bea.post(`user_groups/${id}/members`, { delete: [bea.userId] }), 'Insufficient permission');
  await expectError(cal.post(`user_groups/${id}/members`, { delete: [cal.userId] }), 'Insufficient permission');
  // can_remove_members_group lets Cal remove others; can_add_members_group lets him add.
  await ann.ok('PATCH', `user_groups/${id}`, { can_remove_members_group: { new: { direct_members: [cal.userId], direct_subgroups: [] } } });
  await cal.ok('POST', `user_groups/${id}/members`, { delete: [bea.userId] });
  await expectError(cal.post(`user_groups/${id}/members`, { add: [bea.userId] }), 'Insufficient permission');
  await ann.ok('PATCH', `user_groups/${id}`, { can_add_members_group: { new: { direct_members: [cal.userId], direct_subgroups: [] } } });
  await cal.ok('POST', `user_groups/${id}/members`, { add: [bea.userId] });
  // The owner is in can_manage_all_groups and manages every group.
  await s.owner.ok('POST', `user_groups/${id}/members`, { delete: [bea.userId] });
  assert.deepEqual(await members(id), sorted([ann.userId, cal.userId]));
});

test('GET members and membership: recursive and direct, deactivated users, errors', async () => {
  const inner = await create(ann, { members: [bea.userId] });
  const outer = await create(ann, { members: [ann.userId], subgroups: [inner] });
  assert.deepEqual(await members(outer), sorted([ann.userId, bea.userId]));
  assert.deepEqual(await members(outer, true), [ann.userId]);
  const is = async (g: number, u: number, direct = false) => (await ann.ok('GET', `user_groups/${g}/members/${u}`, { direct_member_only: direct })).is_user_group_member;
  assert.equal(await is(outer, bea.userId), true);
  assert.equal(await is(outer, bea.userId, true), false);
  assert.equal(await is(outer, cal.userId), false);
  assert.equal(await is(sys['role:members'], ann.userId), true);
  assert.equal(await is(sys['role:members'], gus.userId), false);
  await expectError(ann.get(`user_groups/${outer}/members/99999`), 'No such user');
  await expectError(ann.get('user_groups/99999/members'), 'Invalid user group');
  await expectError(gus.get(`user_groups/${outer}/members`), 'Not allowed for guest users');
  const other = await s.realm2('members3');
  await expectError(other.owner.get(`user_groups/${outer}/members`), 'Invalid user group');
  // A deactivated member is listed nowhere.
  const dan = await s.user('Dan Leaving');
  await ann.ok('POST', `user_groups/${inner}/members`, { add: [dan.userId] });
  await s.running.app.store.write((tx) => tx.updateTable('users').set({ is_active: 0 }).where('id', '=', dan.userId).execute());
  s.running.app.caches.userChanged(dan.userId);
  assert.deepEqual(await members(outer), sorted([ann.userId, bea.userId]));
  assert.equal(await is(inner, dan.userId), false);
  await expectError(ann.post(`user_groups/${inner}/members`, { delete: [dan.userId] }), `Invalid user ID: ${dan.userId}`);
});

test('subgroups: add and delete, cycles refused, events, both endpoints', async () => {
  const a = await create(ann);
  const b = await create(ann);
  const c = await create(ann);
  const reg = await bea.ok('POST', 'register', { event_types: ['user_group'] });
  await ann.ok('POST', `user_groups/${a}/subgroups`, { add: [b] });
  await ann.ok('POST', `user_groups/${b}/members`, { add_subgroups: [c, sys['role:moderators']] });
  assert.deepEqual(await subgroups(a, true), [b]);
  assert.deepEqual(await subgroups(a), sorted([b, c, sys['role:moderators'], sys['role:administrators'], sys['role:owners']]));
  await expectError(ann.post(`user_groups/${c}/subgroups`, { add: [a] }), `User group ${c} is already a subgroup of one of the passed subgroups.`);
  await expectError(ann.post(`user_groups/${a}/subgroups`, { add: [a] }), `User group ${a} is already a subgroup of one of the passed subgroups.`);
  await expectError(ann.post(`user_groups/${a}/subgroups`, { add: [b] }), `User group ${b} is already a subgroup of this group.`);
  await expectError(ann.post(`user_groups/${a}/subgroups`, { delete: [c] }), `User group ${c} is not a subgroup of this group.`);
  await expectError(ann.post(`user_groups/${a}/subgroups`, { add: [99999] }), 'Invalid user group');
  await expectError(ann.post(`user_groups/${a}/subgroups`, {}), "Nothing to do. Specify at least one of 'add' or 'delete'.");
  await expectError(bea.post(`user_groups/${a}/subgroups`, { add: [c] }), 'Insufficient permission');
  await expectError(ann.post(`user_groups/${sys['role:members']}/subgroups`, { add: [a] }), 'Insufficient permission');
  await ann.ok('POST', `user_groups/${b}/subgroups`, { delete: [c] });
  await ann.ok('POST', `user_groups/${a}/members`, { delete_subgroups: [b] });
  const events = (await drainEvents(bea, reg.queue_id)).filter((e) => e.type === 'user_group');
  assert.deepEqual(events.map((e) => [e.op, e.group_id, e.direct_subgroup_ids]), [
    ['add_subgroups', a, [b]],
    ['add_subgroups', b, sorted([c, sys['role:moderators']])],
    ['remove_subgroups', b, [c]],
    ['remove_subgroups', a, [b]],
  ]);
  assert.deepEqual(await subgroups(a), []);
});
