// POST /users: administrators holding the operator-granted can_create_users permission only, per role and for bots.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type Client, type TestServer } from './helpers/server.js';
import { grantCanCreateUsers, newBot } from './helpers/people.js';

let s: TestServer;
let n = 0;
before(async () => {
  s = await startTestServer();
});
after(async () => {
  await s.close();
});

const create = (c: Client) => {
  n += 1;
  return c.post('users', { email: `created${n}@example.com`, password: 'created-password', full_name: `Created ${n}` });
};
const refusal = async (c: Client) => {
  const r = await create(c);
  return [r.status, r.body.result, r.body.code, r.body.msg];
};
const NOT_ADMIN = [400, 'error', 'BAD_REQUEST', 'Must be an organization administrator'];
const NOT_AUTHORIZED = [400, 'error', 'BAD_REQUEST', 'User not authorized to create users'];

test('owners and administrators without the permission are refused, and nothing is created', async () => {
  const admin = await s.user('Ada Admin', 200);
  assert.deepEqual(await refusal(s.owner), NOT_AUTHORIZED);
  assert.deepEqual(await refusal(admin), NOT_AUTHORIZED);
  const names = (await s.owner.ok('GET', 'users')).members.map((m: { full_name: string }) => m.full_name);
  assert.ok(!names.some((name: string) => name.startsWith('Created')));
});

test('owners and administrators with the permission create users', async () => {
  const admin = await s.user('Adam Admin', 200);
  for (const c of [s.owner, admin]) {
    await grantCanCreateUsers(s, c.userId);
    const r = await create(c);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(typeof r.body.user_id, 'number');
  }
});

test('moderators, members and guests are refused even with the permission', async () => {
  for (const [name, role] of [['Mo Moderator', 300], ['Mem Member', 400], ['Gus Guest', 600]] as const) {
    const c = await s.user(name, role);
    assert.deepEqual(await refusal(c), NOT_ADMIN, name);
    await grantCanCreateUsers(s, c.userId);
    assert.deepEqual(await refusal(c), NOT_ADMIN, name);
  }
});

test('bots: an administrator bot with the permission may, others may not', async () => {
  const bot = await newBot(s, s.owner, 'creator');
  assert.deepEqual(await refusal(bot), NOT_ADMIN);
  await grantCanCreateUsers(s, bot.userId);
  assert.deepEqual(await refusal(bot), NOT_ADMIN);
  const adminBot = await newBot(s, s.owner, 'admincreator');
  await s.owner.ok('PATCH', `users/${adminBot.userId}`, { role: 200 });
  assert.deepEqual(await refusal(adminBot), NOT_AUTHORIZED);
  await grantCanCreateUsers(s, adminBot.userId);
  const r = await create(adminBot);
  assert.equal(r.status, 200, JSON.stringify(r.body));
});

test('parameters are checked before the permission, as in the original', async () => {
  const admin = await s.user('Avi Admin', 200);
  const r = await admin.post('users', { email: 'x@example.com', full_name: 'X' });
  assert.equal(r.body.code, 'REQUEST_VARIABLE_MISSING');
});
