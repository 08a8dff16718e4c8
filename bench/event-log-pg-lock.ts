// The PostgreSQL event log's commit-order lock, measured: concurrent writes that each insert one
// log row with the lock (as sends do) against the same insert without it. `node dist/bench/event-log-pg-lock.js [URL]`.
import pg from 'pg';
import { sql } from 'kysely';
import { randomBytes } from 'node:crypto';
import { Store } from '../src/store/store.js';
import { insertLogRow } from '../src/events/event-log.js';

const base = process.argv[2] ?? 'postgres://postgres@127.0.0.1:5432';
const N = 3000;
const CONCURRENCY = 32;
const body = JSON.stringify([{ users: [], recipientsOf: 1, event: { type: 'message', message: { id: 1, content: '<p>' + 'x'.repeat(300) + '</p>' } } }]);

async function run(store: Store, locked: boolean): Promise<number> {
  let next = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next++ < N) {
        await store.write(async (tx) => {
          // The send's other statements stand in as one insert.
          await sql`INSERT INTO event_nodes (node_id, instance, seen_at) VALUES (${randomBytes(8).toString('hex')}, 'x', 0)`.execute(tx);
          if (locked) await insertLogRow(store, tx, 1, null, body, 0, true);
          else await sql`INSERT INTO event_log (realm_id, stamp, created_at, body) VALUES (1, pg_current_xact_id()::text, 0, ${body})`.execute(tx);
        });
      }
    }),
  );
  return N / ((performance.now() - start) / 1000);
}

const name = `parley_lockbench_${randomBytes(4).toString('hex')}`;
const admin = new pg.Client({ connectionString: `${base}/postgres` });
await admin.connect();
await admin.query(`CREATE DATABASE ${name}`);
try {
  const store = await Store.open({ databaseUrl: `${base}/${name}`, dataDir: '/tmp', poolSize: CONCURRENCY });
  const out: string[] = [];
  for (let i = 0; i < 3; i++) {
    const free = await run(store, false);
    const locked = await run(store, true);
    out.push(`without lock ${free.toFixed(0)} writes/s, with lock ${locked.toFixed(0)} writes/s`);
  }
  console.log(out.join('\n'));
  await store.close();
} finally {
  await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin.end();
}
