// The register answer's writer: top-level JSON texts (as text or as kept UTF-8 bytes) give what JSON.stringify gives for the parsed values.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { JsonText, serializeWithJsonText, stringifyWithJsonText } from '../src/core/json-text.js';

const big = Array.from({ length: 5000 }, (_, i) => ({ user_id: i, full_name: `Zoë "${i}" \\ 😀\u2028`, is_active: i % 3 !== 0 }));
const small = [{ a: 1 }, null, 'x'];

function cases(): Record<string, unknown>[] {
  const bigText = JSON.stringify(big);
  return [
    { result: 'success', msg: '', n: 1, skipped: undefined, list: new JsonText(JSON.stringify(small)), f: () => 1 },
    { first: JsonText.fromBytes(Buffer.from(bigText)), middle: { deep: [1, 2] }, last: new JsonText(bigText) },
    { skipped: undefined, users: JsonText.fromBytes(Buffer.from(bigText)), none: JsonText.fromBytes(Buffer.from('[]')), tail: 'é' },
  ];
}

test('text and bytes answers equal JSON.stringify of the parsed values', () => {
  for (const obj of cases()) {
    const plain = JSON.parse(JSON.stringify(obj)) as Record<string, unknown>;
    const want = JSON.stringify(plain);
    assert.equal(stringifyWithJsonText(obj), want);
    const out = serializeWithJsonText(obj);
    assert.equal(typeof out === 'string' ? out : out.toString('utf8'), want);
  }
});

test('a large kept value makes the answer bytes; small ones leave it text', () => {
  const [withSmall, withBig] = cases();
  assert.equal(typeof serializeWithJsonText(withSmall), 'string');
  assert.ok(Buffer.isBuffer(serializeWithJsonText(withBig)));
});
