// The search index keeps its segments when rows are added, and the worker's merge steps merge them
// with every row still found.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { Store } from './store.js';
import { SQLITE_FILE } from './sqlite-connection.js';
import { searchMerger } from './search-merge.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-merge-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

test('indexing leaves merging to the merger, which merges without losing rows', async () => {
  const store = await Store.open({ databaseUrl: '', dataDir: dir });
  await store.close();
  const db = new Database(path.join(dir, SQLITE_FILE));
  try {
    // FTS5 merges in its inserts no more (the option the migration sets, in the index's config table).
    assert.equal(db.prepare(`SELECT v FROM message_search_config WHERE k = 'automerge'`).pluck().get(), 0);
    const insert = db.prepare('INSERT INTO message_search (rowid, topic, content) VALUES (?, ?, ?)');
    // Each transaction writes one segment.
    for (let i = 1; i <= 12; i++) db.transaction(() => insert.run(i, 'greetings', `hello number${i}`))();
    const segments = () => db.prepare('SELECT count(DISTINCT segid) FROM message_search_idx').pluck().get() as number;
    assert.equal(segments(), 12);

    const merger = searchMerger(db)!;
    let steps = 0;
    while (merger.step()) steps++;
    assert.ok(steps > 0, 'the merger found work');
    assert.ok(segments() < 4, `merged down to ${segments()} segments`);
    const found = db.prepare(`SELECT rowid FROM message_search WHERE message_search MATCH 'hello' ORDER BY rowid`).pluck().all();
    assert.deepEqual(found, Array.from({ length: 12 }, (_, i) => i + 1));
    assert.deepEqual(db.prepare(`SELECT rowid FROM message_search WHERE message_search MATCH 'number7'`).pluck().all(), [7]);
    assert.equal(merger.step(), false, 'nothing left to merge');
  } finally {
    db.close();
  }
});

test('a database without the search index has no merger', () => {
  const db = new Database(':memory:');
  try {
    assert.equal(searchMerger(db), null);
  } finally {
    db.close();
  }
});
