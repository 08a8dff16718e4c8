// Bot storage: GET/PUT/DELETE /bot_storage (bots only, the size limit, errors), and a stateful bot
// on the original's unmodified Python client keeping its state there.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { startTestServer, Client, type TestServer } from './helpers/server.js';
import { expectError } from './helpers/assertions.js';
import { root } from './helpers/cli.js';

let s: TestServer;
let ann: Client;
let bot: Client;
let other: Client;

const CLIENT = path.resolve(root, '../shared/clients/python-zulip-api');
const PYTHON = '/usr/bin/python3';
const pythonReady = fs.existsSync(path.join(CLIENT, 'zulip/zulip/__init__.py')) && spawnSync(PYTHON, ['-c', 'import requests, distro, typing_extensions']).status === 0;

async function newBot(owner: Client, short: string): Promise<Client> {
  const r = await owner.ok('POST', 'bots', { full_name: `${short} bot`, short_name: short });
  const email = (await owner.ok('GET', `users/${r.user_id}`)).user.email as string;
  return new Client(s, r.user_id, email, r.api_key);
}

before(async () => {
  s = await startTestServer();
  ann = await s.user('Ann Owner');
  bot = await newBot(ann, 'keeper');
  other = await newBot(ann, 'other');
});
after(async () => {
  await s.close();
});

test('put, get (all or some keys), replace and delete entries; each bot has its own', async () => {
  assert.deepEqual((await bot.ok('GET', 'bot_storage')).storage, {});
  await bot.ok('PUT', 'bot_storage', { storage: { a: '1', b: 'two', 'ключ': 'значение' } });
  await bot.ok('PUT', 'bot_storage', { storage: { b: 'deux' } });
  assert.deepEqual((await bot.ok('GET', 'bot_storage')).storage, { a: '1', b: 'deux', 'ключ': 'значение' });
  assert.deepEqual((await bot.ok('GET', 'bot_storage', { keys: ['b'] })).storage, { b: 'deux' });
  assert.deepEqual((await other.ok('GET', 'bot_storage')).storage, {});
  await expectError(other.get('bot_storage', { keys: ['a'] }), 'Key does not exist.');
  await expectError(bot.get('bot_storage', { keys: ['a', 'nope'] }), 'Key does not exist.');
  await expectError(bot.delete('bot_storage', { keys: ['a', 'nope'] }), 'Key does not exist.');
  assert.deepEqual(Object.keys((await bot.ok('GET', 'bot_storage')).storage).sort(), ['a', 'b', 'ключ'], 'a failed delete removes nothing');
  await bot.ok('DELETE', 'bot_storage', { keys: ['a'] });
  assert.deepEqual((await bot.ok('GET', 'bot_storage')).storage, { b: 'deux', 'ключ': 'значение' });
  await bot.ok('DELETE', 'bot_storage');
  assert.deepEqual((await bot.ok('GET', 'bot_storage')).storage, {});
});

test('people may not use bot storage', async () => {
  for (const p of [ann.get('bot_storage'), ann.api('PUT', 'bot_storage', { storage: { a: 'b' } }), ann.delete('bot_storage')]) {
    await expectError(p, 'Must be a bot user', 'PERMISSION_DENIED');
  }
});

test('bad input', async () => {
  const put = (storage: unknown) => bot.api('PUT', 'bot_storage', { storage: storage as string });
  await expectError(bot.api('PUT', 'bot_storage', {}), "Missing 'storage' argument", 'REQUEST_VARIABLE_MISSING');
  await expectError(put('{'), 'Argument "storage" is not valid JSON.');
  await expectError(put(JSON.stringify(['a'])), 'storage is not a dict');
  await expectError(put(JSON.stringify({ a: 1 })), 'storage["a"] is not a string');
  await expectError(put(JSON.stringify({ a: 'x\0y' })), 'storage must not contain null bytes');
  await expectError(bot.get('bot_storage', { keys: 'a' }), 'Argument "keys" is not valid JSON.');
  await expectError(bot.get('bot_storage', { keys: { a: 1 } }), 'keys is not a list');
  await expectError(bot.delete('bot_storage', { keys: [1] }), 'keys[0] is not a string');
});

test('the storage limit: 10,000,000 characters of keys and values', async () => {
  const big = 'a'.repeat(1_990_000);
  for (let i = 1; i <= 5; i++) await other.ok('PUT', 'bot_storage', { storage: { [`k${i}`]: big } });
  // 5 × (2 + 1,990,000) = 9,950,010 stored; 2 + 50,032 more passes the limit by 44.
  await expectError(other.api('PUT', 'bot_storage', { storage: { k6: 'b'.repeat(50_032) } }), 'Request exceeds storage limit by 44 characters. The limit is 10000000 characters.');
  assert.equal(Object.keys((await other.ok('GET', 'bot_storage')).storage).length, 5, 'nothing of a refused request is stored');
  // Replacing a value counts only the difference.
  await other.ok('PUT', 'bot_storage', { storage: { k1: 'short', k6: 'b'.repeat(50_032) } });
  await other.ok('DELETE', 'bot_storage');
});

test('a stateful bot on the unmodified Python client keeps its count in bot storage', { skip: !pythonReady && 'the Python client or its packages are missing' }, async () => {
  const counter = await newBot(ann, 'counter');
  const run = (n: number) => {
    const child = spawn(PYTHON, [path.join(root, 'test/python/counter_bot.py'), s.url, counter.email, counter.apiKey, String(n)], {
      env: { ...process.env, PYTHONPATH: path.join(CLIENT, 'zulip') },
    });
    let out = '';
    let err = '';
    const ready = new Promise<void>((resolve) => child.stdout.on('data', (d) => ((out += d), out.includes('ready') && resolve())));
    child.stderr.on('data', (d) => (err += d));
    const exited = new Promise<string>((resolve, reject) => child.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`bot exited ${code}: ${err}`)))));
    return { ready: Promise.race([ready, exited.then(() => undefined)]), exited };
  };
  const dm = (text: string) => ann.ok('POST', 'messages', { type: 'direct', to: JSON.stringify([counter.userId]), content: text });
  const first = run(2);
  await first.ready;
  await dm('one');
  await dm('two');
  assert.match(await first.exited, /done 2/);
  // A new process starts from the stored count.
  const second = run(1);
  await second.ready;
  await dm('three');
  assert.match(await second.exited, /done 3/);
  assert.deepEqual((await counter.ok('GET', 'bot_storage')).storage, { count: '3' });
  const replies = (await ann.ok('GET', 'messages', { anchor: 'newest', num_before: 10, num_after: 0, narrow: JSON.stringify([{ operator: 'sender', operand: counter.userId }]), apply_markdown: false })).messages;
  assert.deepEqual(replies.map((m: any) => m.content), ['count: 1', 'count: 2', 'count: 3']);
});
