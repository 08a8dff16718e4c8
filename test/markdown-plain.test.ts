// The plain-line fast path of the renderer gives exactly what the full pipeline gives.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { renderFull, renderMessage, renderContextFrom } from '../src/lib/markdown/index.js';

const ctx = renderContextFrom([]);
const ALPHABET = "abcXYZ019 ,!?'";

test('plain lines render the same through the fast path and the full pipeline', () => {
  const samples = ['ok', 'thanks!', "it's fine, really", 'lunch at 12?', 'A', '1', '2 3', "don't  stop", 'x!?'];
  // Random lines from the fast path's alphabet (deterministic generator).
  let seed = 42;
  const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  for (let i = 0; i < 2000; i++) {
    const len = 1 + Math.floor(rand() * 20);
    samples.push(Array.from({ length: len }, () => ALPHABET[Math.floor(rand() * ALPHABET.length)]).join(''));
  }
  for (const s of samples) assert.deepEqual(renderMessage(s, ctx), renderFull(s, ctx), JSON.stringify(s));
});

test('a plain line still goes through linkifiers when the organization has some', () => {
  const withLinkifier = renderContextFrom([], { linkifiers: [{ id: 1, pattern: 'T(?P<id>[0-9]+)', url_template: 'https://tracker.example.com/{id}' }] });
  const r = renderMessage('see T123 now', withLinkifier);
  assert.match(r.html, /<a href="https:\/\/tracker\.example\.com\/123"[^>]*>T123<\/a>/);
  assert.deepEqual(r, renderFull('see T123 now', withLinkifier));
});
