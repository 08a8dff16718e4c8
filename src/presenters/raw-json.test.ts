// RawJson texts land in place, nested or several; outside stringifyAnswer a RawJson is its value.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RawJson, stringifyAnswer } from './raw-json.js';

test('stringifyAnswer puts each RawJson text in its place, and leaves look-alike strings alone', () => {
  const value = { a: new RawJson('[1,2,{"x":"y"}]'), b: [new RawJson('{}'), 'raw-json:not-ours:0'], c: { d: new RawJson('"s"') } };
  const text = stringifyAnswer(value);
  assert.equal(text, '{"a":[1,2,{"x":"y"}],"b":[{},"raw-json:not-ours:0"],"c":{"d":"s"}}');
  assert.equal(stringifyAnswer({ plain: 1 }), '{"plain":1}');
  assert.equal(JSON.stringify({ a: new RawJson('[1,2]') }), '{"a":[1,2]}');
});
