// Store.write's hooks (work before COMMIT, callbacks after it) and transaction IDs noted by statements, on the suite's database.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { beforeCommit, noteTransactionId, storeOf, Store, whenCommitted, type CommitWork } from './store.js';
import { freshStorage, type FreshStorage } from '../../test/helpers/storage.js';

let st: FreshStorage;
let store: Store;
before(async () => {
  st = await freshStorage();
  store = await Store.open({ databaseUrl: st.env.PARLEY_DATABASE_URL ?? '', dataDir: st.env.PARLEY_DATA_DIR });
});
after(async () => {
  await store.close();
  await st.cleanup();
});

const realmRow = (sub: string) => ({ string_id: sub, name: sub, description: '', date_created: 0, deactivated: 0, settings: '{}' });
const realmNames = async (prefix: string) =>
  (await store.db.selectFrom('realms').select('string_id').where('string_id', 'like', `${prefix}%`).orderBy('string_id').execute()).map((r) => r.string_id);

test('work left for the commit runs once per transaction, with the items of the writes that succeeded', async () => {
  const runs: string[][] = [];
  const work: CommitWork<string> = {
    async run(tx, items) {
      runs.push([...items]);
      // Inside the transaction, after the writes: what it writes commits with them.
      for (const sub of items) await tx.insertInto('realms').values(realmRow(`${sub}-after`)).execute();
    },
  };
  const writes = Array.from({ length: 12 }, (_, i) =>
    store.write(async (tx) => {
      const sub = `hk${String(i).padStart(2, '0')}`;
      await tx.insertInto('realms').values(realmRow(sub)).execute();
      await beforeCommit(tx, work, sub);
      if (i === 5) throw new Error('changed its mind');
      return sub;
    }),
  );
  const results = await Promise.allSettled(writes);
  assert.equal(results.filter((r) => r.status === 'rejected').length, 1);
  const ok = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value.result] : []));
  assert.deepEqual(runs.flat().sort(), ok.sort(), 'each succeeded write once; the failed one never');
  assert.ok(runs.length <= ok.length);
  if (store.dialect === 'sqlite') assert.ok(runs.length < ok.length, 'writes committed together share one run');
  assert.deepEqual(await realmNames('hk'), [...ok.flatMap((s) => [s, `${s}-after`])].sort());
});

test('work that fails fails the writes it would have committed with', async () => {
  const work: CommitWork<number> = {
    async run() {
      throw new Error('index broken');
    },
  };
  await assert.rejects(
    store.write(async (tx) => {
      await tx.insertInto('realms').values(realmRow('wf1')).execute();
      await beforeCommit(tx, work, 1);
    }),
    /index broken/,
  );
  assert.deepEqual(await realmNames('wf'), []);
});

test('outside a write, work runs at once', async () => {
  const seen: number[] = [];
  await beforeCommit(store.db, { run: async (_tx, items) => void seen.push(...items) }, 7);
  assert.deepEqual(seen, [7]);
});

test('callbacks run after their write committed, never for one rolled back', async () => {
  const called: number[] = [];
  const writes = Array.from({ length: 6 }, (_, i) =>
    store.write(async (tx) => {
      await tx.insertInto('realms').values(realmRow(`cb${i}`)).execute();
      whenCommitted(tx, () => called.push(i));
      assert.deepEqual(called, [], 'not before the commit');
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
