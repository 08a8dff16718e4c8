// Alert words: GET/POST/DELETE /users/me/alert_words, the alert_words event, and has_alert_word on new messages.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type Client, type TestServer } from './helpers/server.js';
import { expectError } from './helpers/assertions.js';
import { newChannel, queueFor } from './helpers/messages.js';
import { containsAlertWord } from '../src/lib/personal/alert-words.js';

let s: TestServer;
let ari: Client;
let ben: Client;
let cy: Client;

before(async () => {
  s = await startTestServer();
  ari = await s.user('Ari Alerted');
  ben = await s.user('Ben Sender');
  cy = await s.user('Cy Bystander');
  await newChannel(s, 'alerts', { subscribers: [ari, ben, cy] });
});
after(async () => {
  await s.close();
});


test('add, list and remove alert words (case-insensitive), with alert_words events to the user only', async () => {
  const mine = await queueFor(ari, { event_types: ['alert_words'] });
  const theirs = await queueFor(ben, { event_types: ['alert_words'] });
  assert.deepEqual((await ari.ok('POST', 'users/me/alert_words', { alert_words: ['Natural', ' illustrious ', '', 'NATURAL'] })).alert_words, ['Natural', 'illustrious']);
  // Already present in another case: nothing changes, no event.
  assert.deepEqual((await ari.ok('POST', 'users/me/alert_words', { alert_words: ['natural'] })).alert_words, ['Natural', 'illustrious']);
  assert.deepEqual((await ari.ok('GET', 'users/me/alert_words')).alert_words, ['Natural', 'illustrious']);
  assert.deepEqual((await ari.ok('DELETE', 'users/me/alert_words', { alert_words: ['NATURAL', 'unknown'] })).alert_words, ['illustrious']);
  assert.deepEqual((await ari.ok('DELETE', 'users/me/alert_words', { alert_words: ['unknown'] })).alert_words, ['illustrious']);
  assert.deepEqual(
    (await mine.events()).map(({ id: _id, ...e }) => e),
    [
      { type: 'alert_words', alert_words: ['Natural', 'illustrious'] },
      { type: 'alert_words', alert_words: ['illustrious'] },
    ],
  );
  assert.deepEqual(await theirs.events(), []);
  assert.deepEqual((await ben.ok('GET', 'users/me/alert_words')).alert_words, []);
  const reg = await ari.ok('POST', 'register', { fetch_event_types: ['alert_words'] });
  assert.deepEqual(reg.alert_words, ['illustrious']);
  const other = await s.realm2('alertorg');
  assert.deepEqual((await other.owner.ok('GET', 'users/me/alert_words')).alert_words, []);
});

test('parameter forms: form, query and multipart', async () => {
  for (const as of ['form', 'query', 'multipart'] as const) {
    assert.ok((await cy.ok('POST', 'users/me/alert_words', { alert_words: [`w-${as}`] }, { as })).alert_words.includes(`w-${as}`));
    assert.ok(!(await cy.ok('DELETE', 'users/me/alert_words', { alert_words: [`w-${as}`] }, { as })).alert_words.includes(`w-${as}`));
  }
  await cy.ok('GET', 'users/me/alert_words', {}, { as: 'form' });
});

test('validation errors', async () => {
  await expectError(ari.post('users/me/alert_words', { alert_words: ['x'.repeat(101)] }), 'alert_words[0] is too long (limit: 100 characters)');
  await expectError(ari.post('users/me/alert_words', { alert_words: ['ok', 'a\u0000b'] }), 'alert_words[1] must not contain null bytes');
  await expectError(ari.post('users/me/alert_words', { alert_words: [3] }), 'alert_words[0] is not a string');
  await expectError(ari.post('users/me/alert_words', { alert_words: 'word' }), 'Argument "alert_words" is not valid JSON.');
  await expectError(ari.delete('users/me/alert_words', { alert_words: {} }), 'alert_words is not a list');
  const r = await ari.post('users/me/alert_words', {});
  assert.equal(r.body.code, 'REQUEST_VARIABLE_MISSING');
});

test('word-boundary matching like the original', () => {
  assert.ok(containsAlertWord('the natural way', 'natural'));
  assert.ok(containsAlertWord('natural', 'natural'));
  assert.ok(containsAlertWord('(natural), "natural"!', 'natural'));
  assert.ok(containsAlertWord('unnatural, but natural.', 'natural'));
  assert.ok(!containsAlertWord('unnatural', 'natural'));
  assert.ok(!containsAlertWord('naturally', 'natural'));
  assert.ok(containsAlertWord('see the big deal?', 'big deal'));
});

test('new messages carry has_alert_word for recipients whose words they contain, never the sender', async () => {
  await ari.ok('POST', 'users/me/alert_words', { alert_words: ['Deploy', 'release train'] });
  await ben.ok('POST', 'users/me/alert_words', { alert_words: ['deploy'] });
  const qa = await queueFor(ari);
  const qc = await queueFor(cy);
  const send = async (params: Record<string, unknown>) => (await ben.ok('POST', 'messages', params as never)).id as number;
  const hit = await send({ type: 'stream', to: 'alerts', topic: 't', content: 'Time to DEPLOY.' });
  const miss = await send({ type: 'stream', to: 'alerts', topic: 't', content: 'redeployment later' });
  const dm = await send({ type: 'direct', to: [ari.userId, cy.userId], content: 'the release train leaves' });
  const flagsOf = (events: Record<string, any>[], id: number) => events.find((e) => e.type === 'message' && e.message.id === id)!.flags as string[];
  const ea = await qa.events();
  assert.ok(flagsOf(ea, hit).includes('has_alert_word'));
  assert.ok(!flagsOf(ea, miss).includes('has_alert_word'));
  assert.ok(flagsOf(ea, dm).includes('has_alert_word'));
  const ec = await qc.events();
  for (const id of [hit, dm]) assert.ok(!flagsOf(ec, id).includes('has_alert_word'));
  // Stored flags too: the message fetch and the is:alerted narrow agree.
  const fetched = await ari.ok('GET', 'messages', { anchor: hit, num_before: 0, num_after: 0 });
  assert.ok(fetched.messages[0].flags.includes('has_alert_word'));
  const alerted = await ari.ok('GET', 'messages', { anchor: 'newest', num_before: 10, num_after: 0, narrow: [{ operator: 'is', operand: 'alerted' }] });
  assert.deepEqual(alerted.messages.map((m: any) => m.id), [hit, dm]);
  const senderView = await ben.ok('GET', 'messages', { anchor: hit, num_before: 0, num_after: 0 });
  assert.ok(!senderView.messages[0].flags.includes('has_alert_word'));
  // A removed word stops matching at once (the realm's cached words are reloaded).
  await ari.ok('DELETE', 'users/me/alert_words', { alert_words: ['deploy'] });
  const after = await send({ type: 'stream', to: 'alerts', topic: 't', content: 'deploy again' });
  assert.ok(!flagsOf(await qa.events(), after).includes('has_alert_word'));
});
