// Store.write's callbacks after commit and transaction IDs noted by statements, on the suite's database.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { noteTransactionId, storeOf, whenCommitted, type Store } from './store.js';
import { openFreshStore } from '../../test/helpers/storage.js';

let store: Store;
let close: () => Promise<void>;
before(async () => ({ store, close } = await openFreshStore()));
after(() => close());

const realmRow = (sub: string) => ({ string_id: sub, name: sub, description: '', date_created: 0, deactivated: 0, settings: '{}' });

test('callbacks run after their write committed, never for one rolled back', async () => {
  const called: number[] = [];
  const writes = Array.from({ length: 6 }, (_, i) =>
    store.write(async (tx) => {
      await tx.insertInto('realms').values(realmRow(`cb${i}`)).execute();
      whenCommitted(tx, () => called.push(i));
      // Not before its own commit (on PostgreSQL, other writes run and commit concurrently).
      assert.ok(!called.includes(i), 'not before the commit');
      if (i === 2) throw new Error('no');
      return i;
    }),
  );
  const results = await Promise.allSettled(writes);
  assert.deepEqual(called.sort(), [0, 1, 3, 4, 5]);
  assert.equal(results[2].status, 'rejected');
  let now = false;
  whenCommitted(store.db, () => (now = true));
  assert.ok(now, 'outside a write: at once');
});

test('transactions and handles know their store', async () => {
  assert.equal(storeOf(store.db), store);
  await store.write(async (tx) => assert.equal(storeOf(tx), store));
  await store.read(async (tx) => assert.equal(storeOf(tx), store));
});

test('a transaction ID returned by a statement is the commit stamp (PostgreSQL)', async (t) => {
  if (store.dialect !== 'postgres') return t.skip('PostgreSQL only');
  const earlier = await store.read(async (_tx, snap) => snap);
  const { result, stamp } = await store.write(async (tx) => {
    const r = await sql<{ id: number; xid: string }>`INSERT INTO realms (string_id, name, description, date_created, deactivated, settings)
      VALUES ('xid1', 'x', '', 0, 0, '{}') RETURNING id, pg_current_xact_id()::text AS xid`.execute(tx);
    noteTransactionId(tx, r.rows[0].xid);
    return r.rows[0].xid;
  });
  assert.deepEqual(stamp, { kind: 'xid', xid: result });
  assert.ok(!earlier.isVisible(stamp));
  await store.read(async (_tx, snap) => assert.ok(snap.isVisible(stamp)));
});
