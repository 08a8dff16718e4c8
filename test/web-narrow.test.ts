// The web client's narrows: URL form round trips, the API's narrow terms, and which live messages belong to a feed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { apiNarrow, matchesNarrow, narrowFromHash, narrowKey, narrowToHash, type Narrow } from '../web/src/state/narrow.js';

const NARROWS: Narrow[] = [
  { kind: 'inbox' },
  { kind: 'stream', stream_id: 7 },
  { kind: 'topic', stream_id: 7, topic: 'release 1.2 / notes?#x' },
  { kind: 'dm', users: [3, 9] },
  { kind: 'mentions' },
  { kind: 'starred' },
  { kind: 'search', query: 'deploy "fail" #7' },
];

test('every narrow survives its URL form', () => {
  for (const n of NARROWS) assert.deepEqual(narrowFromHash(narrowToHash(n)), n);
  assert.deepEqual(narrowFromHash('#narrow/channel/x'), { kind: 'inbox' }, 'a mangled URL falls back to the inbox');
  assert.deepEqual(narrowFromHash('#narrow/search/%E0%A4%A'), { kind: 'inbox' });
});

test('the API narrow terms', () => {
  assert.deepEqual(apiNarrow({ kind: 'topic', stream_id: 7, topic: 't' }), [
    { operator: 'channel', operand: 7 },
    { operator: 'topic', operand: 't' },
  ]);
  assert.deepEqual(apiNarrow({ kind: 'dm', users: [3, 9] }), [{ operator: 'dm', operand: [3, 9] }]);
  assert.deepEqual(apiNarrow({ kind: 'inbox' }), []);
  assert.equal(narrowKey({ kind: 'dm', users: [9, 3] }), narrowKey({ kind: 'dm', users: [3, 9] }));
});

test('live messages join the feeds they belong to', () => {
  const me = 1;
  const inTopic = { type: 'stream', stream_id: 7, subject: 'Release', flags: [] };
  assert.ok(matchesNarrow(inTopic, { kind: 'topic', stream_id: 7, topic: 'release' }, me), 'topics match case-insensitively');
  assert.ok(!matchesNarrow(inTopic, { kind: 'topic', stream_id: 8, topic: 'release' }, me));
  assert.ok(matchesNarrow(inTopic, { kind: 'stream', stream_id: 7 }, me));
  const dm = { type: 'private', display_recipient: [{ id: 1 }, { id: 3 }, { id: 9 }], flags: ['mentioned'] };
  assert.ok(matchesNarrow(dm, { kind: 'dm', users: [9, 3] }, me));
  assert.ok(!matchesNarrow(dm, { kind: 'dm', users: [3] }, me));
  assert.ok(matchesNarrow(dm, { kind: 'mentions' }, me));
  assert.ok(!matchesNarrow(dm, { kind: 'starred' }, me));
  assert.ok(!matchesNarrow(dm, { kind: 'search', query: 'x' }, me), 'search results are not updated live');
});
