// Several nodes starting at once on one database: each migration is applied once, one first organization.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { Store } from '../src/store/store.js';
import { MIGRATION_NAMES } from '../src/store/migrate.js';
import { freshStorage, startServeProcess } from './helpers/storage.js';
import { cliProcess, root } from './helpers/cli.js';

test('three concurrent migrate commands apply each migration exactly once', async () => {
  const st = await freshStorage();
  try {
    const runs = await Promise.all([1, 2, 3].map(() => cliProcess(['migrate', ...st.args], st.env)));
    for (const r of runs) assert.equal(r.code, 0, r.stderr);
    const applied = runs.flatMap((r) => JSON.parse(r.stdout).applied as string[]);
    assert.deepEqual([...applied].sort(), [...MIGRATION_NAMES].sort(), 'every migration applied by exactly one of them');
    const store = await Store.open({ databaseUrl: st.env.PARLEY_DATABASE_URL ?? '', dataDir: st.env.PARLEY_DATA_DIR });
    try {
      const rows = (await sql<{ name: string }>`SELECT name FROM parley_migrations`.execute(store.db)).rows.map((r) => r.name);
      assert.deepEqual(rows.sort(), [...MIGRATION_NAMES].sort());
    } finally {
      await store.close();
    }
  } finally {
    await st.cleanup();
  }
});

test('three nodes starting together on an empty database: all serve, one migrates each step, one first organization', async () => {
  const st = await freshStorage();
  try {
    const starts = await Promise.allSettled(['n1', 'n2', 'n3'].map((id) => startServeProcess(root, st, ['--port', '0', '--node-id', id])));
    const nodes = starts.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
    try {
      assert.deepEqual(starts.map((s) => (s.status === 'rejected' ? String(s.reason) : 'started')), ['started', 'started', 'started']);
      const withLogin = nodes.filter((n) => /login is in/.test(n.out));
      assert.equal(withLogin.length, 1, 'exactly one node created the first organization');
      const email = /Email:\s+(\S+)/.exec(withLogin[0].out)![1];
      const key = /API key:\s+(\S+)/.exec(withLogin[0].out)![1];
      // Every node serves the same organization.
      for (const n of nodes) {
        const me = await fetch(`${n.url}/api/v1/users/me`, { headers: { authorization: 'Basic ' + Buffer.from(`${email}:${key}`).toString('base64') } });
        assert.equal(me.status, 200);
      }
    } finally {
      await Promise.all(nodes.map((n) => n.stop()));
    }
    const store = await Store.open({ databaseUrl: st.env.PARLEY_DATABASE_URL ?? '', dataDir: st.env.PARLEY_DATA_DIR });
    try {
      const names = (await sql<{ name: string }>`SELECT name FROM parley_migrations`.execute(store.db)).rows.map((r) => r.name);
      assert.equal(names.length, MIGRATION_NAMES.length);
      const realms = await store.db.selectFrom('realms').select('string_id').execute();
      assert.deepEqual(realms, [{ string_id: '' }]);
    } finally {
      await store.close();
    }
  } finally {
    await st.cleanup();
  }
});
