// PostgreSQL: a channel send's insert (both paths) keeps one generic plan per connection, whatever
// the channel's size against the average (skipped on SQLite, which plans each prepared statement once).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { startTestServer, type Client, type TestServer } from './helpers/server.js';
import { channelMessageRow, newChannel } from './helpers/messages.js';
import { insertChannelMessage } from '../src/lib/messages/send-statements.js';
import { sendInOneStatement } from '../src/lib/messages/send-one-statement.js';

let s: TestServer;
before(async () => (s = await startTestServer()));
after(() => s.close());

test('sends to a channel smaller than the average are not planned again each time', async (t) => {
  if (s.dialect !== 'postgres') return t.skip('PostgreSQL only');
  const people: Client[] = [];
  for (let i = 0; i < 30; i++) people.push(await s.user(`Planner ${i}`));
  const small = await newChannel(s, 'plan-small', { subscribers: people.slice(0, 2) });
  await newChannel(s, 'plan-big', { subscribers: people });
  // Statistics that tell the planner the small channel is smaller than the average one.
  await sql`ANALYZE subscriptions`.execute(s.running.app.store.db);
  const row = channelMessageRow(s, small, people[0].userId, 'x');
  // One transaction, so one connection: its prepared statement's counters show how each run was planned.
  const { result } = await s.running.app.store.write(async (tx) => {
    const version = (await sql<{ v: string }>`SELECT xmin::text AS v FROM streams WHERE id = ${small.id}`.execute(tx)).rows[0].v;
    for (let i = 0; i < 12; i++) {
      assert.equal((await insertChannelMessage(tx, row, people[0].userId, 1)).recipients.length, 2);
      assert.equal((await sendInOneStatement(tx, row, version, 1, '[]'))?.recipients.length, 2);
    }
    return (await sql<{ generic: number; custom: number }>`SELECT generic_plans::int AS generic, custom_plans::int AS custom FROM pg_prepared_statements WHERE statement ILIKE '%insert into "user_messages"%' OR statement LIKE '%WITH input AS%'`.execute(tx)).rows;
  });
  // The transaction path's insert and the one-statement send.
  assert.equal(result.length, 2);
  for (const r of result) {
    // PostgreSQL tries five custom plans before it compares; the rest must reuse the generic one.
    assert.ok(r.custom <= 5, `custom plans: ${r.custom}`);
    assert.ok(r.generic >= 7, `generic plans: ${r.generic}`);
  }
});
