// Events-consistency for scheduled messages and attachments: register state + events = a fresh register.
import { test, before, after } from 'node:test';
import { startTestServer, type Client, type TestServer } from './helpers/server.js';
import { until } from './helpers/wait.js';
import { checkConsistency } from './helpers/events.js';
import { postFiles } from './helpers/multipart.js';
import type { Clock } from '../src/context.js';

let now = 1_700_000_000;
const clock: Clock = { now: () => now };
let s: TestServer;
let kim: Client;
let lee: Client;
let general: number;
before(async () => {
  s = await startTestServer({ clock });
  kim = await s.user('Kim Consistent');
  lee = await s.user('Lee Consistent');
  general = (await s.running.app.store.db.selectFrom('streams').select('id').where('realm_id', '=', s.realm.id).where('name', '=', 'general').executeTakeFirstOrThrow()).id;
});
after(async () => {
  await s.close();
});

test('scheduled_messages add, update, remove; delivery removes it', async () => {
  let id = 0;
  await checkConsistency(kim, async () => {
    id = (await kim.ok('POST', 'scheduled_messages', { type: 'direct', to: [lee.userId], content: 'later', scheduled_delivery_timestamp: now + 3600 })).scheduled_message_id;
    await kim.ok('POST', 'scheduled_messages', { type: 'stream', to: general, topic: 'soon', content: 'sooner', scheduled_delivery_timestamp: now + 60 });
  }, { expect: ['scheduled_messages'] });
  await checkConsistency(kim, () => kim.ok('PATCH', `scheduled_messages/${id}`, { type: 'stream', to: general, topic: 'x', content: 'edited', scheduled_delivery_timestamp: now + 30 }), { expect: ['scheduled_messages'] });
  await checkConsistency(kim, () => kim.ok('DELETE', `scheduled_messages/${id}`), { expect: ['scheduled_messages'] });
  await checkConsistency(
    kim,
    async () => {
      now += 120;
      await until('delivery', async () => (await kim.ok('GET', 'scheduled_messages')).scheduled_messages.length === 0);
    },
    { expect: ['scheduled_messages', 'message'] },
  );
});

test('attachment add, update, remove: register carries no files, so nothing changes', async () => {
  let url = '';
  await checkConsistency(kim, async () => {
    const r = await postFiles(kim, 'user_uploads', [{ data: Buffer.from('hello'), filename: 'a.txt', contentType: 'text/plain' }]);
    url = r.body.url;
  }, { expect: ['attachment'] });
  await checkConsistency(kim, () => kim.ok('POST', 'messages', { type: 'stream', to: general, topic: 'f', content: `[a](${url})` }), { expect: ['attachment'] });
  const id = (await kim.ok('GET', 'attachments')).attachments[0].id;
  await checkConsistency(kim, () => kim.ok('DELETE', `attachments/${id}`), { expect: ['attachment'] });
});

test('invites_changed: a signal only, register carries no invitations', async () => {
  await checkConsistency(s.owner, () => s.owner.ok('POST', 'invites/multiuse', {}), { expect: ['invites_changed'] });
});
