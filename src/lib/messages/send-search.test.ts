// Search rows on SQLite: sends indexed in batches after commit, edits, deletions and a failed send in
// one group, and a restart after messages were committed but not indexed, leave exactly the stored text searchable.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Store, type Tx } from '../../store/store.js';
import { indexMessages, searchCondition, unindexMessages } from './search.js';
import { SearchIndexer, searchReady } from './search-indexer.js';

let dir: string;
let store: Store;
let indexer: SearchIndexer;
before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-send-search-'));
  // SQLite only: PostgreSQL searches an expression index and has nothing to maintain.
  store = await Store.open({ databaseUrl: '', dataDir: dir });
  indexer = new SearchIndexer(store);
  await indexer.start();
});
after(async () => {
  indexer.stop();
  await store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function insert(tx: Tx, content: string): Promise<number> {
  const r = await tx
    .insertInto('messages')
    .values({ realm_id: 1, type: 1, recipient_id: 1, stream_id: 1, sender_id: 1, topic: 'searchtopic', topic_key: 'searchtopic', content, rendered_content: '', date_sent: 0, sending_client: 'test', last_edit_time: null, last_moved_time: null, edit_history: null, is_me_message: 0, has_link: 0, has_image: 0, has_attachment: 0 })
    .executeTakeFirstOrThrow();
  return Number(r.insertId);
}

/** A send as the action does it: the message commits, then the indexer hears of it. */
async function send(content: string): Promise<number> {
  const { result: id } = await store.write((tx) => insert(tx, content));
  indexer.noteCommitted(id);
  return id;
}

const found = async (words: string) =>
  (
    await store.db
      .selectFrom('messages as m')
      .select('m.id')
      .where(searchCondition('sqlite', words))
      .orderBy('m.id')
      .execute()
  ).map((r) => r.id);

const searchRows = async () => Number((await store.db.selectFrom('message_search').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);

test('a sent message becomes searchable on its own, and at once for a search narrow', async () => {
  const early = await send('zebra crossing');
  // The batch runs shortly after the send, with no search asking for it.
  for (let i = 0; i < 100 && !(await found('zebra')).length; i++) await new Promise((r) => setTimeout(r, 10));
  assert.deepEqual(await found('zebra'), [early]);
  const late = await send('zebra stripes');
  await searchReady(indexer, [{ operator: 'search', operand: 'zebra', negated: false }]);
  assert.deepEqual(await found('stripes'), [late], 'a search narrow waits for the pending batch');
});

test('sends, edits, deletions and a failed send committed together: the index holds what is stored', async () => {
  const old = await send('old words');
  await indexer.catchUp();
  assert.deepEqual(await found('old'), [old]);
  const before = await searchRows();

  // One group: the writes are queued in the same turn of the event loop.
  let editedId = 0;
  let deletedId = 0;
  const writes = [
    store.write((tx) => insert(tx, 'alpha plain')),
    store.write(async (tx) => (editedId = await insert(tx, 'beta before'))),
    store.write(async (tx) => (deletedId = await insert(tx, 'gamma gone'))),
    store.write(async (tx) => {
      await insert(tx, 'delta failed');
      throw new Error('send failed');
    }),
    // Edited in the same group as its send, before it was indexed: the batch reads the new text.
    store.write(async (tx) => {
      await tx.updateTable('messages').set({ content: 'beta after' }).where('id', '=', editedId).execute();
      await indexMessages(tx, 'sqlite', [editedId]);
    }),
    store.write(async (tx) => {
      await unindexMessages(tx, 'sqlite', [deletedId]);
      await tx.deleteFrom('messages').where('id', '=', deletedId).execute();
    }),
    // An older, indexed message edited in the group: replaced, not doubled.
    store.write(async (tx) => {
      await tx.updateTable('messages').set({ content: 'old renewed' }).where('id', '=', old).execute();
      await indexMessages(tx, 'sqlite', [old]);
    }),
  ];
  const results = await Promise.allSettled(writes);
  assert.deepEqual(
    results.map((r) => r.status),
    ['fulfilled', 'fulfilled', 'fulfilled', 'rejected', 'fulfilled', 'fulfilled', 'fulfilled'],
  );
  const alpha = (results[0] as PromiseFulfilledResult<{ result: number }>).value.result;
  for (const id of [alpha, editedId, deletedId]) indexer.noteCommitted(id);
  await indexer.catchUp();
  assert.deepEqual(await found('alpha'), [alpha]);
  assert.deepEqual(await found('beta after'), [editedId]);
  assert.deepEqual(await found('before'), []);
  assert.deepEqual(await found('gamma'), []);
  assert.deepEqual(await found('delta'), []);
  assert.deepEqual(await found('renewed'), [old]);
  assert.deepEqual(await found('old words'), []);
  // One index row per stored message: alpha and beta are new.
  assert.equal(await searchRows(), before + 2);
});

test('messages committed but not indexed when the server stopped are indexed at the next start', async () => {
  indexer.stop();
  // Committed after the indexer stopped (as if the process was killed before the batch ran).
  const a = await send('orphan one');
  const b = await send('orphan two');
  assert.deepEqual(await found('orphan'), []);
  indexer = new SearchIndexer(store);
  await indexer.start();
  assert.deepEqual(await found('orphan'), [a, b]);
  // One row per stored message: nothing already indexed was indexed twice.
  const stored = Number((await store.db.selectFrom('messages').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
  assert.equal(await searchRows(), stored);
});
