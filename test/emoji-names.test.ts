// Unicode emoji names are the original's: the table served at server_emoji_data_url, reactions and rendering.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { startTestServer, type ApiResponse, type Client, type TestServer } from './helpers/server.js';
import { expectError } from './helpers/assertions.js';

let s: TestServer;
let ema: Client;
let msg = 0;

before(async () => {
  s = await startTestServer();
  ema = await s.user('Ema Emoji');
  msg = (await ema.ok('POST', 'messages', { type: 'stream', to: 'general', topic: 'emoji', content: 'react here' })).id;
});
after(async () => {
  await s.close();
});

/** GETs the register state's emoji data URL from the test server, without credentials (a static file, outside /api/v1). */
function fetchData(url: string, headers: Record<string, string> = {}): Promise<ApiResponse> {
  const u = new URL(url);
  const base = new URL(s.url);
  return new Promise((resolve, reject) => {
    const req = http.get({ hostname: base.hostname, port: base.port, path: u.pathname + u.search, headers: { ...headers, host: u.host } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode ?? 0, body: text ? (JSON.parse(text) as Record<string, any>) : {}, headers: res.headers });
      });
    });
    req.on('error', reject);
  });
}

test('register gives server_emoji_data_url; the file maps codes to the original names, canonical first', async () => {
  const reg = await ema.ok('POST', 'register', { fetch_event_types: ['realm'] });
  const url = reg.server_emoji_data_url as string;
  assert.equal(typeof url, 'string');
  assert.match(new URL(url).pathname, /\/emoji_api\.json$/);
  assert.ok(new URL(url).searchParams.get('v'));
  const r = await fetchData(url);
  assert.equal(r.status, 200);
  assert.match(String(r.headers['content-type']), /^application\/json/);
  assert.match(String(r.headers['cache-control']), /immutable/);
  const names = r.body.code_to_names as Record<string, string[]>;
  // A static file: the one property openapi names, no API envelope.
  assert.deepEqual(Object.keys(r.body), ['code_to_names']);
  assert.equal(new URL(url).pathname, '/static/generated/emoji/emoji_api.json');
  assert.equal(names['1f642'][0], 'smile');
  assert.deepEqual(names['1f44d'], ['+1', 'thumbs_up', 'like']);
  assert.deepEqual(names['1f384'], ['holiday_tree']);
  assert.equal(names['1f937-200d-2640'][0], 'woman_shrugging');
  // Codes carry no variation selector; Unicode 15.1 sequences are not in the table.
  assert.ok(names['2764']);
  assert.equal(names['2764-fe0f'], undefined);
  assert.equal(names['1f426-200d-1f525'], undefined);
  // Revalidation by ETag answers 304.
  const again = await fetchData(url, { 'if-none-match': String(r.headers.etag) });
  assert.equal(again.status, 304);
});

test('reactions accept the original names and refuse names only other tables have', async () => {
  await ema.ok('POST', `messages/${msg}/reactions`, { emoji_name: 'holiday_tree' });
  await ema.ok('POST', `messages/${msg}/reactions`, { emoji_name: 'gold' });
  await ema.ok('POST', `messages/${msg}/reactions`, { emoji_name: 'smile', emoji_code: '1f642', reaction_type: 'unicode_emoji' });
  const m = (await ema.ok('GET', `messages/${msg}`)).message;
  assert.deepEqual(
    m.reactions.map((r: any) => [r.emoji_name, r.emoji_code, r.reaction_type]),
    [
      ['holiday_tree', '1f384', 'unicode_emoji'],
      ['gold', '1f947', 'unicode_emoji'],
      ['smile', '1f642', 'unicode_emoji'],
    ],
  );
  await expectError(ema.post(`messages/${msg}/reactions`, { emoji_name: 'christmas_tree' }), "Emoji 'christmas_tree' does not exist");
  await expectError(ema.post(`messages/${msg}/reactions`, { emoji_name: 'slightly_smiling_face' }), "Emoji 'slightly_smiling_face' does not exist");
  await expectError(ema.post(`messages/${msg}/reactions`, { emoji_name: 'fried_egg' }), "Emoji 'fried_egg' does not exist");
  // With a code, the name must be one of that code's names.
  await expectError(ema.post(`messages/${msg}/reactions`, { emoji_name: 'smile', emoji_code: '1f600' }), 'Invalid emoji name.');
  await expectError(ema.post(`messages/${msg}/reactions`, { emoji_name: 'heart', emoji_code: '2764-fe0f' }), 'Invalid emoji code');
  await ema.ok('DELETE', `messages/${msg}/reactions`, { emoji_name: 'holiday_tree' });
});

test('messages render the original names', async () => {
  const id = (await ema.ok('POST', 'messages', { type: 'stream', to: 'general', topic: 'emoji', content: ':smile: :cat: 💩 :fried_egg:' })).id;
  const html = (await ema.ok('GET', `messages/${id}`)).message.content as string;
  assert.match(html, /class="emoji emoji-1f642"[^>]*>:smile:</);
  assert.match(html, /class="emoji emoji-1f408"[^>]*>:cat:</);
  assert.match(html, /title="poop">:poop:</);
  assert.match(html, /:fried_egg:<\/p>/);
});
