// Store: group commit keeps each write's all-or-nothing outcome; stamps tell snapshots what they saw.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { Store } from './store.js';
import { SQLITE_FILE } from './sqlite-connection.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-store-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

const realmRow = (sub: string) => ({ string_id: sub, name: sub, description: '', date_created: 0, deactivated: 0, settings: '{}' });

test('concurrent writes commit together but fail alone', async () => {
  const store = await Store.open({ databaseUrl: '', dataDir: dir });
  try {
    const writes = Array.from({ length: 30 }, (_, i) =>
      store.write(async (tx) => {
        await tx.insertInto('realms').values(realmRow(`r${i}`)).execute();
        if (i === 7) throw new Error('this one changes its mind');
        if (i === 8) await tx.insertInto('realms').values(realmRow('r0')).execute(); // duplicate: fails in SQL
        return i;
      }),
    );
    const results = await Promise.allSettled(writes);
    assert.equal(results.filter((r) => r.status === 'rejected').length, 2);
    assert.equal((results[7] as PromiseRejectedResult).reason.message, 'this one changes its mind');
    const names = (await store.db.selectFrom('realms').select('string_id').execute()).map((r) => r.string_id);
    assert.equal(names.length, 28);
    assert.ok(!names.includes('r7') && !names.includes('r8'), 'a failed write leaves nothing behind');
    const stamps = results.filter((r) => r.status === 'fulfilled').map((r) => (r as PromiseFulfilledResult<{ stamp: { seq: number } }>).value.stamp.seq);
    assert.ok(new Set(stamps).size < stamps.length, 'concurrent writes shared commits');
    // A read taken now sees every commit so far, and none after.
    await store.read(async (_tx, snap) => {
      for (const s of stamps) assert.ok(snap.isVisible({ kind: 'seq', seq: s }));
      assert.ok(!snap.isVisible({ kind: 'seq', seq: Math.max(...stamps) + 1 }));
    });
  } finally {
    await store.close();
  }
});

test('the data survives closing and reopening', async () => {
  const store = await Store.open({ databaseUrl: '', dataDir: dir });
  try {
    const n = await store.db.selectFrom('realms').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    assert.equal(Number(n.n), 28);
  } finally {
    await store.close();
  }
});

test('a write waits for a lock held by another connection with the event loop free', async () => {
  const store = await Store.open({ databaseUrl: '', dataDir: dir });
  const other = new Database(path.join(dir, SQLITE_FILE));
  try {
    other.exec('BEGIN IMMEDIATE');
    let ticks = 0;
    let settled = false;
    const write = store.write((tx) => tx.insertInto('realms').values(realmRow('locked-out')).execute());
    void write.then(
      () => (settled = true),
      () => (settled = true),
    );
    // Timers keep running while the write waits: five of them fire before it settles. Blocking on
    // the lock in SQLite's busy handler would have held them (and every request) back until the
    // write failed; however slow the machine, the count is reached only with the loop free.
    await new Promise<void>((resolve) => {
      const ticker = setInterval(() => {
        if (++ticks >= 5 || settled) {
          clearInterval(ticker);
          resolve();
        }
      }, 2);
    });
    assert.equal(settled, false, `the write is still waiting after ${ticks} timer ticks`);
    const seen = await store.db.selectFrom('realms').select('string_id').where('string_id', '=', 'locked-out').execute();
    assert.equal(seen.length, 0, 'reads go on meanwhile, and the write has not happened');
    other.exec('COMMIT');
    await write;
    const after = await store.db.selectFrom('realms').select('string_id').where('string_id', '=', 'locked-out').execute();
    assert.equal(after.length, 1);
  } finally {
    other.close();
    await store.close();
  }
});

test('a write still waiting for the lock after the wait limit fails alone, and the next one lands', async () => {
  const store = await Store.open({ databaseUrl: '', dataDir: dir, lockWaitMs: 100 });
  const other = new Database(path.join(dir, SQLITE_FILE));
  try {
    other.exec('BEGIN IMMEDIATE');
    await assert.rejects(
      store.write((tx) => tx.insertInto('realms').values(realmRow('never')).execute()),
      (err: { code?: string }) => err.code === 'SQLITE_BUSY',
    );
    other.exec('COMMIT');
    await store.write((tx) => tx.insertInto('realms').values(realmRow('later')).execute());
    const names = (await store.db.selectFrom('realms').select('string_id').where('string_id', 'in', ['never', 'later']).execute()).map((r) => r.string_id);
    assert.deepEqual(names, ['later']);
  } finally {
    other.close();
    await store.close();
  }
});
