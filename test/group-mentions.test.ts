// Group mentions: members (through subgroups too) get the mentioned flag; can_mention_group is enforced.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type Client, type TestServer } from './helpers/server.js';
import { drainEvents } from './helpers/events.js';
import { systemGroupIds } from '../src/lib/groups.js';

let s: TestServer;
let ann: Client;
let kim: Client;
let lee: Client;
let out: Client;

async function makeGroup(name: string, members: Client[], subgroups: number[], canMention: 'role:everyone' | 'role:nobody'): Promise<number> {
  const app = s.running.app;
  const { result } = await app.store.write(async (tx) => {
    const sys = await systemGroupIds(tx, s.realm.id);
    const permissions = JSON.stringify({ can_mention_group: sys[canMention], can_manage_group: sys['role:administrators'] });
    const g = await tx
      .insertInto('user_groups')
      .values({ realm_id: s.realm.id, name, description: '', is_system_group: 0, deactivated: 0, date_created: 0, creator_id: null, permissions })
      .returning('id')
      .executeTakeFirstOrThrow();
    for (const m of members) await tx.insertInto('user_group_members').values({ group_id: g.id, user_id: m.userId }).execute();
    for (const sg of subgroups) await tx.insertInto('user_group_subgroups').values({ group_id: g.id, subgroup_id: sg }).execute();
    return g.id;
  });
  return result;
}

before(async () => {
  s = await startTestServer();
  ann = await s.user('Ann Mentioner');
  kim = await s.user('Kim Member');
  lee = await s.user('Lee Subgroup');
  out = await s.user('Out Sider');
});
after(async () => {
  await s.close();
});

test('members of a mentioned group, through subgroups too, are flagged mentioned; others are not', async () => {
  const inner = await makeGroup('inner', [lee], [], 'role:everyone');
  await makeGroup('helpers', [kim], [inner], 'role:everyone');
  const regs = await Promise.all([kim, lee, out].map((c) => c.ok('POST', 'register', { event_types: ['message'] })));
  await ann.ok('POST', 'messages', { type: 'stream', to: 'general', topic: 'help', content: 'ping @*helpers*' });
  const flags = await Promise.all([kim, lee, out].map(async (c, i) => (await drainEvents(c, regs[i].queue_id)).find((e) => e.type === 'message')?.flags));
  assert.ok(flags[0].includes('mentioned'));
  assert.ok(flags[1].includes('mentioned'));
  assert.ok(!flags[2].includes('mentioned'));
  const silent = await ann.ok('POST', 'messages', { type: 'stream', to: 'general', topic: 'help', content: 'fyi @_*helpers*' });
  const msg = await kim.ok('GET', `messages/${silent.id}`);
  assert.ok(!msg.message.flags.includes('mentioned'), 'silent group mentions flag nobody');
});

test('a group nobody may mention cannot be mentioned', async () => {
  await makeGroup('closed', [kim], [], 'role:nobody');
  const r = await ann.post('messages', { type: 'stream', to: 'general', topic: 'help', content: 'hey @*closed*' });
  assert.equal(r.status, 400);
  assert.equal(r.body.msg, "You are not allowed to mention user group 'closed'.");
});
