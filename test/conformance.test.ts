// The conformance check of the test client (test/helpers/conformance.ts) against ../shared/reference: it finds undefined fields, and the answers the issue named have none.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { startTestServer, type Client, type TestServer } from './helpers/server.js';
import { queueFor } from './helpers/messages.js';
import { conformanceOn, reference, referencePath, unexplainedFields } from './helpers/conformance.js';
import { DOCUMENTED_EXTRAS } from './helpers/conformance-extras.js';

const present = referencePath() !== null;
if (!present) {
  // A fresh clone may lack ../shared; CI always has it.
  if (process.env.CI) throw new Error('../shared/reference/zulip-openapi.yaml is missing (required in CI)');
  console.log('NOTICE: ../shared/reference/zulip-openapi.yaml is absent: the conformance checks are skipped.');
}
const skip = present ? false : 'no ../shared/reference';

let s: TestServer;
let ana: Client;
before(async () => {
  s = await startTestServer();
  ana = await s.user('Ana Answers');
});
after(async () => {
  await s.close();
});

test('the check is on in the suite', { skip }, () => {
  assert.equal(conformanceOn, true);
});

test('a field the reference does not define is found, at any depth', { skip }, () => {
  const me = { result: 'success', msg: '', user_id: 1, email: 'a@b', bot_type: null };
  assert.deepEqual(unexplainedFields('GET', 'users/me', me), ['GET /users/me.bot_type']);
  const events = {
    result: 'success',
    msg: '',
    queue_id: 'q',
    events: [{ id: 0, type: 'reaction', op: 'add', message_id: 1, emoji_name: 'a', emoji_code: '1', reaction_type: 'unicode_emoji', user_id: 1, user: { user_id: 1 } }],
  };
  assert.deepEqual(unexplainedFields('GET', 'events', events), ['GET /events.events[].user']);
  const register = { result: 'success', msg: '', queue_id: 'q', last_event_id: -1, max_user_group_name_length: 100, service_feature_level: 497 };
  assert.deepEqual(unexplainedFields('POST', 'register', register), ['POST /register.max_user_group_name_length']);
  // Errors are not checked here (their envelope is the same everywhere).
  assert.deepEqual(unexplainedFields('GET', 'users/me', { result: 'error', msg: 'x', code: 'BAD_REQUEST', extra: 1 }), []);
  assert.ok(reference());
});

test('every field the check lets through is explained in docs/decisions.md', { skip }, () => {
  const decisions = fs.readFileSync(new URL('../../docs/decisions.md', import.meta.url), 'utf8');
  for (const field of DOCUMENTED_EXTRAS) assert.ok(decisions.includes(`\`${field}\``), `${field} is not explained in docs/decisions.md`);
});

test('register, GET /users/me and the reaction event carry only the reference’s fields; has_videoprovider_token is always in register', { skip }, async () => {
  // The client rejects any answer with an unexplained field: these calls passing is the check.
  const full = await ana.ok('POST', 'register', {});
  assert.equal(full.has_videoprovider_token, false);
  assert.equal('max_user_group_name_length' in full, false);
  const narrow = await ana.ok('POST', 'register', { fetch_event_types: ['realm'] });
  assert.equal(narrow.has_videoprovider_token, false);
  const me = await ana.ok('GET', 'users/me');
  assert.equal('bot_type' in me, false);
  assert.equal('bot_owner_id' in me, false);
  const q = await queueFor(ana);
  const id = (await ana.ok('POST', 'messages', { type: 'stream', to: 'general', topic: 't', content: 'x' })).id;
  await ana.ok('POST', `messages/${id}/reactions`, { emoji_name: 'octopus' });
  const reaction = (await q.events()).find((e) => e.type === 'reaction');
  assert.ok(reaction);
  assert.equal('user' in reaction, false);
});
