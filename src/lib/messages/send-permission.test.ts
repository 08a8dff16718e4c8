// Posting permissions checked against remembered system groups: per database, and only once the groups' rows committed.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Store } from '../../store/store.js';
import { isUserInGroup } from '../groups.js';

const dirs: string[] = [];
const stores: Store[] = [];
async function openStore(): Promise<Store> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-send-permission-'));
  dirs.push(dir);
  const store = await Store.open({ databaseUrl: '', dataDir: dir });
  stores.push(store);
  return store;
}
after(async () => {
  for (const s of stores) await s.close();
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

const group = (name: string, system: boolean) => ({ realm_id: 1, name, description: '', is_system_group: system ? 1 : 0, deactivated: 0, date_created: 0, creator_id: null, permissions: '{}' });
const member = { id: 5, role: 400, realm_id: 1, is_active: 1 };
const guest = { ...member, role: 600 };

test('a group ID names a system group in one database and a plain group in another', async () => {
  const a = await openStore();
  const b = await openStore();
  await a.write((tx) => tx.insertInto('user_groups').values(group('role:members', true)).execute());
  await b.write((tx) => tx.insertInto('user_groups').values(group('designers', false)).execute());
  for (let i = 0; i < 2; i++) {
    // Twice: the second answers come from what the first remembered.
    assert.equal(await a.read((tx) => isUserInGroup(tx, member, 1)), true);
    assert.equal(await a.read((tx) => isUserInGroup(tx, guest, 1)), false);
    assert.equal(await a.read((tx) => isUserInGroup(tx, { ...member, realm_id: 2 }, 1)), false);
    assert.equal(await b.read((tx) => isUserInGroup(tx, member, 1)), false, 'not a member of the plain group');
  }
});

test('a system group read by a write that rolls back is not remembered', async () => {
  const c = await openStore();
  await assert.rejects(
    c.write(async (tx) => {
      await tx.insertInto('user_groups').values(group('role:everyone', true)).execute();
      assert.equal(await isUserInGroup(tx, guest, 1), true);
      throw new Error('roll back');
    }),
    /roll back/,
  );
  // The rolled-back group's ID goes to the next group.
  await c.write((tx) => tx.insertInto('user_groups').values(group('role:nobody', true)).execute());
  assert.equal((await c.db.selectFrom('user_groups').select('id').executeTakeFirstOrThrow()).id, 1);
  assert.equal(await c.read((tx) => isUserInGroup(tx, guest, 1)), false);
  assert.equal(await c.read((tx) => isUserInGroup(tx, member, 1)), false);
});
