// Unit tests of query-string reading: the split done without URLSearchParams must agree with it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { addQuery } from './body.js';

function viaUrlSearchParams(query: string): [string, string][] {
  const m = new Map<string, string>();
  for (const [k, v] of new URLSearchParams(query)) m.set(k, v);
  return [...m];
}

function viaAddQuery(query: string): [string, string][] {
  const m = new Map<string, string>();
  addQuery(query, m);
  return [...m];
}

test('addQuery reads every query as URLSearchParams does, repeated names last-wins', () => {
  const queries = [
    'queue_id=1-abc&last_event_id=42',
    'a=1&a=2',
    'a',
    'a=',
    '=b',
    '=',
    '&&a=1&&',
    '&',
    'a==b&c=d=e',
    'x=%20y&z=a+b',
    'bad=%zz&ok=1',
    'narrow=%5B%7B%22operator%22%3A%22stream%22%7D%5D',
    'caf\u00e9=cr\u00e8me',
    'lone=\ud800',
    'sp ace=t\tab',
    'q=a?b#c',
  ];
  for (const q of queries) assert.deepEqual(viaAddQuery(q), viaUrlSearchParams(q), q);
  // Random queries over the characters that matter.
  const alphabet = 'ab=&%+2F\u00e9 ';
  for (let n = 0; n < 2000; n++) {
    let q = '';
    const len = Math.floor(Math.random() * 12);
    for (let i = 0; i < len; i++) q += alphabet[Math.floor(Math.random() * alphabet.length)];
    assert.deepEqual(viaAddQuery(q), viaUrlSearchParams(q), JSON.stringify(q));
  }
});
