// A channel bigger than one subscriber statement: every recipient gets every message, whether its rows were written at once or in chunks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Client, startTestServer } from './helpers/server.js';
import { doCreateUser } from '../src/actions/users.js';

const SUBSCRIBERS = 1100;

test('every subscriber of a 1,100-person channel receives each message, unread, also once the channel is written in chunks', async () => {
  const s = await startTestServer();
  try {
    const people: Client[] = [];
    // On SQLite a hundred at a time, which the store commits as one group; on PostgreSQL concurrent
    // creations wait on each other's locks (150 s against 90 s one at a time, measured under load). No password:
    // hashing 1,100 of them would be most of the test.
    const step = s.dialect === 'sqlite' ? 100 : 1;
    for (let from = 0; from < SUBSCRIBERS; from += step) {
      const batch = Array.from({ length: Math.min(step, SUBSCRIBERS - from) }, (_, k) => from + k);
      const made = await Promise.all(batch.map((i) => doCreateUser(s.running.app, s.realm, { email: `bulk${i}@example.com`, fullName: `Bulk ${i}`, password: null, role: 400 })));
      for (const u of made) people.push(new Client(s, u.id, u.email, u.api_key));
    }
    // In user-ID order, which the chunk boundaries below follow.
    people.sort((a, b) => a.userId - b.userId);
    await s.owner.ok('POST', 'users/me/subscriptions', { subscriptions: [{ name: 'everyone-here' }], principals: people.map((p) => p.userId) });
    // Listeners at the start, the chunk boundary and the end of the user-ID order: the recipients a
    // send reads back from each chunk are whom its event goes to.
    const listeners = [people[0], people[999], people[1000], people[SUBSCRIBERS - 1]];
    const queues = await Promise.all(listeners.map((who) => who.ok('POST', 'register', { event_types: ['message'] })));
    // The first message is written in one statement; the channel is then known to be big, so the
    // second is written a thousand rows at a time.
    const ids: number[] = [];
    for (const content of ['first to all', 'second to all']) {
      ids.push((await s.owner.ok('POST', 'messages', { type: 'stream', to: 'everyone-here', topic: 'all', content })).id);
    }
    for (const [i, who] of listeners.entries()) {
      const got = await who.ok('GET', 'events', { queue_id: queues[i].queue_id, last_event_id: -1, dont_block: true });
      assert.deepEqual(
        got.events.map((e: any) => [e.message.id, e.flags]),
        ids.map((id) => [id, []]),
        `the events of user ${who.userId}`,
      );
    }
    // People at the start, the chunk boundary and the end of the user-ID order.
    for (const who of [people[0], people[998], people[999], people[1000], people[SUBSCRIBERS - 1]]) {
      const got = await who.ok('GET', 'messages', { anchor: 'newest', num_before: 10, num_after: 0, narrow: [{ operator: 'channel', operand: 'everyone-here' }] });
      assert.deepEqual(
        got.messages.map((m: any) => [m.id, m.flags.includes('read')]),
        ids.map((id) => [id, false]),
        `user ${who.userId}`,
      );
    }
    // Every recipient's row exists: the channel's unread count for a late user counts both.
    const reg = await people[SUBSCRIBERS - 1].ok('POST', 'register', { fetch_event_types: ['message', 'update_message_flags'], event_types: ['message'] });
    assert.equal(reg.unread_msgs.count, 2);
    const rows = await s.running.app.store.db.selectFrom('user_messages').select((eb) => eb.fn.countAll<number>().as('n')).where('message_id', 'in', ids).executeTakeFirstOrThrow();
    assert.equal(Number(rows.n), 2 * (SUBSCRIBERS + 1));
  } finally {
    await s.close();
  }
});
