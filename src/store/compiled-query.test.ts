// Prepared statements: values land in their slots run after run, constants stay, on the suite's database (SQLite or PostgreSQL).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import type { Store } from './store.js';
import { prepared } from './compiled-query.js';
import { openFreshStore } from '../../test/helpers/storage.js';

let store: Store;
let close: () => Promise<void>;
before(async () => ({ store, close } = await openFreshStore()));
after(() => close());

const realmRow = (sub: string) => ({ string_id: sub, name: `Name ${sub}`, description: '', date_created: 0, deactivated: 0, settings: '{}' });

const insertRealm = prepared((db, p: { sub: string; name: string }) => db.insertInto('realms').values({ ...realmRow('x'), string_id: p.sub, name: p.name }).returning('id'));
const realmsNamed = prepared((db, p: { prefix: string; after: number }) =>
  db
    .selectFrom('realms')
    .select(['id', 'string_id', 'name'])
    // A constant (deactivated = 0) between two slots, and a slot inside an sql template.
    .where('deactivated', '=', 0)
    .where('id', '>', p.after)
    .where(sql<boolean>`name LIKE ${p.prefix} || '%'`)
    .orderBy('id'),
);

test('a prepared statement runs again and again with new values in the slots', async () => {
  const { result: ids } = await store.write(async (tx) => {
    const out: number[] = [];
    for (const [sub, name] of [
      ['a1', 'Alpha one'],
      ['a2', 'Alpha two'],
      ['b1', 'Beta one'],
    ]) {
      out.push((await insertRealm.first(tx, store.dialect, { sub, name }))!.id);
    }
    return out;
  });
  assert.equal(new Set(ids).size, 3);
  const alphas = await store.read((tx) => realmsNamed.rows(tx, store.dialect, { prefix: 'Alpha', after: 0 }));
  assert.deepEqual(
    alphas.map((r) => r.string_id),
    ['a1', 'a2'],
  );
  const later = await store.read((tx) => realmsNamed.rows(tx, store.dialect, { prefix: 'Alpha', after: ids[0] }));
  assert.deepEqual(
    later.map((r) => r.string_id),
    ['a2'],
  );
  const betas = await store.read((tx) => realmsNamed.rows(tx, store.dialect, { prefix: 'Beta', after: 0 }));
  assert.deepEqual(
    betas.map((r) => r.name),
    ['Beta one'],
  );
});

test('each run binds the same SQL text; only the parameters change', async () => {
  await store.read(async (tx) => {
    const a = realmsNamed.bind(tx, store.dialect, { prefix: 'x', after: 1 });
    const b = realmsNamed.bind(tx, store.dialect, { prefix: 'y', after: 2 });
    assert.equal(a.sql, b.sql);
    assert.deepEqual(a.parameters, [0, 1, 'x']);
    assert.deepEqual(b.parameters, [0, 2, 'y']);
  });
});

test('a missing value is an error, not a NULL', async () => {
  await store.read(async (tx) => {
    assert.throws(() => realmsNamed.bind(tx, store.dialect, { prefix: 'x' } as never), /no value for after/);
  });
});
