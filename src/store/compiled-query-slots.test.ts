// Prepared statements refuse a spread copy of their values, whose slots would silently compile as constants.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Kysely, SqliteDialect } from 'kysely';
import Database from 'better-sqlite3';
import type { DB } from './schema.js';
import { prepared } from './compiled-query.js';

test('spreading the values object is an error, not a statement with NULLs', () => {
  const db = new Kysely<DB>({ dialect: new SqliteDialect({ database: new Database(':memory:') }) });
  const bad = prepared((q, p: { id: number; name: string }) => {
    const copy = { ...p, name: 'x' };
    return q.selectFrom('realms').select('id').where('id', '=', copy.id);
  });
  assert.throws(() => bad.bind(db, 'sqlite', { id: 1, name: 'y' }), /cannot be spread/);
  const good = prepared((q, p: { id: number }) => q.selectFrom('realms').select('id').where('id', '=', p.id));
  assert.deepEqual(good.bind(db, 'sqlite', { id: 3 }).parameters, [3]);
  void db.destroy();
});
