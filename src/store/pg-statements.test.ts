// PostgreSQL connections: named statements, a BEGIN sent with the first statement, and JIT off (skipped on SQLite).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import type { Store } from './store.js';
import { prepared } from './compiled-query.js';
import { onlyPlaceholders, registration } from './pg-statements.js';
import { openFreshStore } from '../../test/helpers/storage.js';

let store: Store;
let close: () => Promise<void>;
before(async () => ({ store, close } = await openFreshStore()));
after(() => close());

const realmRow = (sub: string) => ({ string_id: sub, name: sub, description: '', date_created: 0, deactivated: 0, settings: '{}' });
/** Integer values only: runs folded into its transaction's BEGIN when first. */
const realmById = prepared((db, p: { id: number }) => db.selectFrom('realms').select(['id', 'string_id']).where('id', '=', p.id).forUpdate(), { withBegin: true });
/** Whether the statement arrived in the same message as its transaction's BEGIN (they then share a timestamp). */
const withItsBegin = prepared(
  (db, p: { id: number }) => db.selectFrom('realms').select(sql<boolean>`transaction_timestamp() = statement_timestamp()`.as('together')).where('id', '=', p.id),
  { withBegin: true },
);
const allOfRealm = prepared((db, p: { id: number }) => db.selectFrom('realms').selectAll().where('id', '=', p.id));
const setRealmName = prepared((db, p: { id: number; name: string }) => db.updateTable('realms').set({ name: p.name }).where('id', '=', p.id));

test('only texts whose every dollar is a placeholder take values in place', () => {
  assert.ok(onlyPlaceholders('select * from "t" where "id" = $1 and "x" = $12 - 1'));
  assert.ok(!onlyPlaceholders("select * from t where name = 'a$1'"));
  assert.ok(!onlyPlaceholders('select $$x$$'));
  assert.ok(!onlyPlaceholders('select 1 -- $1'));
  assert.ok(!onlyPlaceholders('select /* $1 */ 1'));
  assert.ok(!onlyPlaceholders('select "a$1" from t'));
});

test('a statement folded into BEGIN runs inside the transaction, which still rolls back whole', async (t) => {
  if (store.dialect !== 'postgres') return t.skip('PostgreSQL only');
  const { result: id } = await store.write(async (tx) => (await tx.insertInto('realms').values(realmRow('fold1')).returning('id').executeTakeFirstOrThrow()).id);
  await assert.rejects(
    store.write(async (tx) => {
      // First in its transaction, integer values only: sent as "BEGIN; SELECT … 42 …".
      assert.equal((await realmById.first(tx, store.dialect, { id }))?.string_id, 'fold1');
      await setRealmName.result(tx, store.dialect, { id, name: 'renamed' });
      throw new Error('roll back');
    }),
    /roll back/,
  );
  assert.equal((await store.db.selectFrom('realms').select('name').where('id', '=', id).executeTakeFirstOrThrow()).name, 'fold1');
  const r = registration(realmById.bind(store.db, store.dialect, { id }).sql)!;
  assert.ok(r.name && r.withBegin);
  assert.ok(registration(setRealmName.bind(store.db, store.dialect, { id, name: 'x' }).sql)!.name, 'named');
  // A statement returning * stays unnamed: a column another node adds would change its result type.
  assert.equal((await allOfRealm.first(store.db, store.dialect, { id }))?.string_id, 'fold1');
  assert.equal(registration(allOfRealm.bind(store.db, store.dialect, { id }).sql)!.name, undefined);
  // Committed when nothing throws.
  await store.write(async (tx) => {
    await realmById.first(tx, store.dialect, { id });
    await setRealmName.result(tx, store.dialect, { id, name: 'renamed' });
  });
  assert.equal((await store.db.selectFrom('realms').select('name').where('id', '=', id).executeTakeFirstOrThrow()).name, 'renamed');
});

test('the first statement travels with BEGIN; later ones do not', async (t) => {
  if (store.dialect !== 'postgres') return t.skip('PostgreSQL only');
  const { result: id } = await store.write(async (tx) => (await tx.insertInto('realms').values(realmRow('ts1')).returning('id').executeTakeFirstOrThrow()).id);
  const { result } = await store.write(async (tx) => [(await withItsBegin.first(tx, store.dialect, { id }))!.together, (await withItsBegin.first(tx, store.dialect, { id }))!.together]);
  assert.deepEqual(result, [true, false]);
});

test('a first statement that fails leaves every pooled connection usable', async (t) => {
  if (store.dialect !== 'postgres') return t.skip('PostgreSQL only');
  // More failing transactions than the pool has connections, each failing in its first statement.
  for (let i = 0; i < 12; i++) {
    await assert.rejects(store.write(async (tx) => void (await sql`SELECT 1 / 0`.execute(tx))));
    await assert.rejects(store.write(async (tx) => void (await realmById.first(tx, store.dialect, { id: 1 / 0 as unknown as number }))));
  }
  const n = await Promise.all(Array.from({ length: 12 }, (_, i) => store.write(async (tx) => (await sql<{ n: number }>`SELECT ${i}::int AS n`.execute(tx)).rows[0].n)));
  assert.deepEqual(
    n.map((r) => r.result),
    Array.from({ length: 12 }, (_, i) => i),
  );
});

test('transactions without statements, and reads, work as before', async (t) => {
  if (store.dialect !== 'postgres') return t.skip('PostgreSQL only');
  await store.db.transaction().execute(async () => {});
  // A write with no statement still gets its transaction's ID.
  const { stamp } = await store.write(async () => null);
  assert.equal(stamp.kind, 'xid');
  const names = await store.read(async (tx, snap) => {
    assert.ok(snap.isVisible(stamp));
    return (await tx.selectFrom('realms').select('string_id').where('string_id', '=', 'fold1').execute()).map((r) => r.string_id);
  });
  assert.deepEqual(names, ['fold1']);
});

test('every pooled connection runs with JIT compilation off, concurrent ones included', async (t) => {
  if (store.dialect !== 'postgres') return t.skip('PostgreSQL only');
  // Several at once, so that more than the first pooled connection answers.
  const settings = await Promise.all(Array.from({ length: 6 }, () => store.read(async (tx) => (await sql<{ jit: string }>`SHOW jit`.execute(tx)).rows[0].jit)));
  assert.deepEqual(new Set(settings), new Set(['off']));
});
