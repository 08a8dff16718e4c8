// Rows read through one JSON array are the rows the driver gives, value for value, in order.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { jsonRowsColumn, parseJsonRows } from './json-rows.js';

interface T {
  t: { id: number; big: number | null; txt: string | null; other: string };
}

const db = new Kysely<T>({ dialect: new SqliteDialect({ database: new Database(':memory:') }) });
const KEYS = ['id', 'big', 'txt', 'other'] as const;

test('integers, text of every kind and nulls survive the trip, ascending by the first column whatever order SQLite gave', async () => {
  await db.schema.createTable('t').addColumn('id', 'integer', (c) => c.primaryKey()).addColumn('big', 'integer').addColumn('txt', 'text').addColumn('other', 'text').execute();
  const texts = ['plain', 'Ünïcode 💩', 'quote " back \\ slash', 'line\nbreak\ttab', 'nul \u0000 inside', 'separators \u2028\u2029', '', '<p>html &amp; "x"</p>'];
  await db
    .insertInto('t')
    .values(texts.map((txt, i) => ({ id: 100 - i, big: i % 3 === 0 ? null : Number.MAX_SAFE_INTEGER - i, txt: i === 5 ? null : txt, other: `o${i}` })))
    .execute();
  const plain = await db.selectFrom('t').select([...KEYS]).orderBy('id').execute();
  const viaJson = await db.selectFrom('t').select(jsonRowsColumn(KEYS).as('rows')).executeTakeFirstOrThrow();
  assert.deepEqual(parseJsonRows(viaJson.rows, KEYS), plain);
  assert.equal(plain.length, texts.length);
});

test('no rows give an empty list', async () => {
  const none = await db.selectFrom('t').select(jsonRowsColumn(KEYS).as('rows')).where('id', '<', 0).executeTakeFirstOrThrow();
  assert.deepEqual(parseJsonRows(none.rows, KEYS), []);
});

test('rows come out ascending by their first column, whatever order the aggregate produced', () => {
  const text = JSON.stringify([
    [30, null, 'c', 'z'],
    [2, 5, 'a', 'x'],
    [11, 7, null, 'y'],
  ]);
  assert.deepEqual(
    parseJsonRows<{ id: number }>(text, KEYS).map((r) => r.id),
    [2, 11, 30],
  );
});
