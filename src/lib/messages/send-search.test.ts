// Sends, edits, deletions and a failed send committed in one group leave exactly the stored text searchable.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Store, type Tx } from '../../store/store.js';
import { indexMessages, indexNewMessage, searchCondition, unindexMessages } from './search.js';

let dir: string;
let store: Store;
before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-send-search-'));
  // SQLite only: PostgreSQL searches an expression index and has nothing to maintain.
  store = await Store.open({ databaseUrl: '', dataDir: dir });
});
after(async () => {
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

const found = async (words: string) =>
  (
    await store.db
      .selectFrom('messages as m')
      .select('m.id')
      .where(searchCondition('sqlite', words))
      .orderBy('m.id')
      .execute()
  ).map((r) => r.id);

test('sends, edits, deletions and a failed send committed together: the index holds what is stored', async () => {
  const { result: old } = await store.write(async (tx) => {
    const id = await insert(tx, 'old words');
    await indexNewMessage(tx, 'sqlite', id);
    return id;
  });
  assert.deepEqual(await found('old'), [old]);

  // One group: the writes are queued in the same turn of the event loop.
  let editedId = 0;
  let deletedId = 0;
  const writes = [
    store.write(async (tx) => {
      const id = await insert(tx, 'alpha plain');
      await indexNewMessage(tx, 'sqlite', id);
      return id;
    }),
    store.write(async (tx) => {
      editedId = await insert(tx, 'beta before');
      await indexNewMessage(tx, 'sqlite', editedId);
      return editedId;
    }),
    store.write(async (tx) => {
      deletedId = await insert(tx, 'gamma gone');
      await indexNewMessage(tx, 'sqlite', deletedId);
      return deletedId;
    }),
    store.write(async (tx) => {
      const id = await insert(tx, 'delta failed');
      await indexNewMessage(tx, 'sqlite', id);
      throw new Error('send failed');
    }),
    // Edited in the same group as its send: indexes its new text itself.
    store.write(async (tx) => {
      await tx.updateTable('messages').set({ content: 'beta after' }).where('id', '=', editedId).execute();
      await indexMessages(tx, 'sqlite', [editedId]);
    }),
    store.write(async (tx) => {
      await unindexMessages(tx, 'sqlite', [deletedId]);
      await tx.deleteFrom('messages').where('id', '=', deletedId).execute();
    }),
    // An older message edited in the group: replaced, not doubled.
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
  assert.deepEqual(await found('alpha'), [alpha]);
  assert.deepEqual(await found('beta after'), [editedId]);
  assert.deepEqual(await found('before'), []);
  assert.deepEqual(await found('gamma'), []);
  assert.deepEqual(await found('delta'), []);
  assert.deepEqual(await found('renewed'), [old]);
  assert.deepEqual(await found('searchtopic'), [old, alpha, editedId]);
  // One index row per stored message.
  const rows = await store.db.selectFrom('message_search').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  assert.equal(Number(rows.n), 3);
});
