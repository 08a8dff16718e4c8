// Unit test: the SQLite JSON row decoding in fetch.ts follows DICT_COLUMNS, column for column.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fromJsonRow } from './fetch.js';
import { DICT_COLUMNS } from './dicts.js';

test('fromJsonRow reads the columns in DICT_COLUMNS order, then the flags', () => {
  const names = [...DICT_COLUMNS, 'um_flags'];
  // Decoding the column names themselves must give every key its own name.
  const row = fromJsonRow(names as never) as unknown as Record<string, string>;
  assert.deepEqual(Object.keys(row).sort(), [...names].sort());
  for (const k of names) assert.equal(row[k], k);
});
