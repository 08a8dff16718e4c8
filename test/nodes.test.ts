// Several nodes safely: SQLite with a bus is refused at start; node IDs are generated when not
// given, and a node ID that a running node holds is refused.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, Client, type TestServer } from './helpers/server.js';

const onPostgres = !!process.env.PARLEY_TEST_PG_URL;

test('SQLite with a bus is refused with a clear error', { skip: onPostgres ? 'a SQLite case; this runs in the SQLite pass' : false }, async () => {
  await assert.rejects(startTestServer({ env: { PARLEY_BUS_URL: 'nats://127.0.0.1:4222' } }), /SQLite is single-node/);
});

test('node IDs: generated when not given, a duplicate of a running node refused', { skip: onPostgres ? false : 'several nodes need PostgreSQL; this runs in the PostgreSQL pass' }, async () => {
  const s = await startTestServer({ env: { PARLEY_NODE_ID: 'dup' } });
  try {
    await assert.rejects(s.peer({ nodeId: 'dup' }), /Node id "dup" is in use by another running node/);
    const other = await s.peer({ nodeId: '' });
    try {
      const onOther = new Client({ url: other.url } as TestServer, s.owner.userId, s.owner.email, s.owner.apiKey);
      const reg = await onOther.ok('POST', 'register', { event_types: ['message'] });
      assert.match(reg.queue_id, /^n[0-9a-f]{8}-/, 'a generated node ID prefixes the queue IDs');
    } finally {
      await other.close();
    }
  } finally {
    await s.close();
  }
});
