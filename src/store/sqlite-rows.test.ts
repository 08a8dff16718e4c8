// Rows made by sqlite-rows.ts are what better-sqlite3's own row objects would have been, with fast properties.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { rowStatement } from './sqlite-rows.js';

const db = new Database(':memory:');
const wide = Array.from({ length: 24 }, (_, i) => `c${i}`);
db.exec(`CREATE TABLE t (id INTEGER PRIMARY KEY, ${wide.map((c) => `${c} TEXT`).join(', ')}, b BLOB, r REAL)`);
const insert = db.prepare(`INSERT INTO t (${wide.join(', ')}, b, r) VALUES (${wide.map(() => '?').join(', ')}, ?, ?)`);
insert.run(...wide.map((c) => `${c} é 💩`), Buffer.from([0, 1, 2]), 0.1 + 0.2);
insert.run(...wide.map(() => null), null, null);

const driver = (sql: string, params: unknown[] = []) => db.prepare(sql).all(params);
const ours = (sql: string, params: unknown[] = []) => rowStatement(db.prepare(sql)).all(params);

test('wide rows, every value type and null come out as the driver gives them', () => {
  const sql = 'SELECT * FROM t ORDER BY id';
  assert.deepEqual(ours(sql), driver(sql));
  assert.deepEqual(Object.keys(ours(sql)[0] as object), ['id', ...wide, 'b', 'r']);
});

test('parameters bind, a duplicate column name keeps its last value, iterate gives the same rows', () => {
  const sql = 'SELECT id, c0 AS x, c1 AS x FROM t WHERE id = ?';
  assert.deepEqual(ours(sql, [1]), driver(sql, [1]));
  assert.deepEqual(ours(sql, [1]), [{ id: 1, x: 'c1 é 💩' }]);
  assert.deepEqual([...rowStatement(db.prepare('SELECT id FROM t ORDER BY id')).iterate([])], [{ id: 1 }, { id: 2 }]);
});

test('a column named __proto__ is a property, not the prototype', () => {
  const [row] = ours('SELECT 7 AS __proto__') as Record<string, unknown>[];
  assert.equal(Object.getPrototypeOf(row), Object.prototype);
  assert.deepEqual(Object.getOwnPropertyDescriptor(row, '__proto__')?.value, 7);
});

test('statements that write and return rows run through the same path', () => {
  const st = rowStatement(db.prepare('INSERT INTO t (c0) VALUES (?) RETURNING id, c0'));
  assert.equal(st.reader, true);
  assert.deepEqual(st.all(['new']), [{ id: 3, c0: 'new' }]);
  const run = rowStatement(db.prepare('SELECT 1 AS one')).run;
  assert.equal(typeof run, 'function');
});
