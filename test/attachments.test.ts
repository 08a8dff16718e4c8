// GET /attachments and DELETE /attachments/{id}: the uploader's files with their messages, the
// organization's usage, attachment events to the uploader only, and deleting (own files only).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type Client, type TestServer } from './helpers/server.js';
import { postFiles } from './helpers/multipart.js';
import { queueFor } from './helpers/messages.js';

let s: TestServer;
let ann: Client;
let ben: Client;
before(async () => {
  s = await startTestServer();
  ann = await s.user('Ann Files');
  ben = await s.user('Ben Files');
});
after(async () => {
  await s.close();
});

async function upload(c: Client, name: string, text: string): Promise<string> {
  const r = await postFiles(c, 'user_uploads', [{ data: Buffer.from(text), filename: name, contentType: 'text/plain' }]);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.url as string;
}

test('list with linked messages and usage; events to the uploader only; delete', async () => {
  const qa = await queueFor(ann, { event_types: ['attachment'] });
  const qb = await queueFor(ben, { event_types: ['attachment'] });
  const usedBefore = (await ann.ok('GET', 'attachments')).upload_space_used as number;
  const url = await upload(ann, 'notes.txt', 'twelve bytes');
  const pathId = url.replace(/^\/user_uploads\//, '');
  let list = await ann.ok('GET', 'attachments');
  assert.equal(list.attachments.length, 1);
  const att = list.attachments[0];
  assert.deepEqual({ ...att, id: 0, create_time: 0 }, { id: 0, name: 'notes.txt', path_id: pathId, size: 12, create_time: 0, message_ids: [] });
  assert.equal(list.upload_space_used, usedBefore + 12);
  assert.deepEqual((await ben.ok('GET', 'attachments')).attachments, []);
  assert.equal((await ben.ok('GET', 'attachments')).upload_space_used, usedBefore + 12, 'the organization total');

  let evs = await qa.events();
  assert.deepEqual(evs.map((e) => [e.type, e.op, e.attachment.id, e.upload_space_used]), [['attachment', 'add', att.id, usedBefore + 12]]);

  // A message linking it: an update with the message; an edit linking it again adds nothing.
  const m1 = (await ann.ok('POST', 'messages', { type: 'stream', to: 'general', topic: 'files', content: `[notes](${url})` })).id;
  evs = await qa.events();
  assert.deepEqual(evs.map((e) => [e.op, e.attachment.message_ids]), [['update', [m1]]]);
  await ann.ok('PATCH', `messages/${m1}`, { content: `[notes again](${url})` });
  assert.deepEqual(await qa.events(), []);
  const m2 = (await ann.ok('POST', 'messages', { type: 'direct', to: [ben.userId], content: `see ${url}` })).id;
  assert.deepEqual((await qa.events()).map((e) => e.attachment.message_ids), [[m1, m2]]);
  list = await ann.ok('GET', 'attachments');
  assert.deepEqual(list.attachments[0].message_ids, [m1, m2]);
  // Someone else linking a file they may read does not make it theirs.
  await ben.ok('POST', 'messages', { type: 'stream', to: 'general', topic: 'files', content: `quoting ${url}` });
  assert.equal((await qa.events()).length, 1);
  assert.deepEqual((await ben.ok('GET', 'attachments')).attachments, []);

  // Delete: only the uploader; bad IDs are "Invalid attachment".
  let r = await ben.delete(`attachments/${att.id}`);
  assert.deepEqual([r.status, r.body.code, r.body.msg], [400, 'BAD_REQUEST', 'Invalid attachment']);
  r = await ann.delete('attachments/999999');
  assert.deepEqual([r.status, r.body.msg], [400, 'Invalid attachment']);
  await ann.ok('DELETE', `attachments/${att.id}`);
  evs = await qa.events();
  assert.deepEqual(evs.map((e) => [e.op, e.attachment, e.upload_space_used]), [['remove', { id: att.id }, usedBefore]]);
  assert.deepEqual(await qb.events(), []);
  list = await ann.ok('GET', 'attachments');
  assert.deepEqual([list.attachments, list.upload_space_used], [[], usedBefore]);
  // The file is gone for everyone.
  assert.equal((await ann.get(`user_uploads/${pathId}`)).status, 404);
  r = await ann.delete(`attachments/${att.id}`);
  assert.equal(r.status, 400);
});

test('another organization sees none of it', async () => {
  const other = await s.realm2('attach-other');
  await upload(ann, 'mine.txt', 'x');
  const list = await other.owner.ok('GET', 'attachments');
  assert.deepEqual([list.attachments, list.upload_space_used], [[], 0]);
  const id = (await ann.ok('GET', 'attachments')).attachments[0].id;
  const r = await other.owner.delete(`attachments/${id}`);
  assert.equal(r.status, 400);
});
