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

test('plain lines with mentions of people and bold words render the same through the shortcut and the full pipeline', () => {
  const people = renderContextFrom([
    { id: 1, full_name: 'Ann Lee' },
    { id: 2, full_name: 'Bob' },
    { id: 3, full_name: 'Dup' },
    { id: 4, full_name: 'dup' },
    { id: 5, full_name: 'all' },
    { id: 6, full_name: 'Zed & Co' },
    { id: 7, full_name: "O'Neil 2" },
    { id: 8, full_name: 'User Number 7' },
  ]);
  const pieces = ['hi', 'ok,', 'yes!', 'why?', "it's", '42', ' ', '  ', '@**Ann Lee**', '@**ann lee**', '@**Bob**', '@** Bob **', '@**Dup**', '@**all**', '@**topic**', '@**Nobody**', '@**Zed & Co**', '@**User Number 7**', 'x@**Bob**', '@**Bob**x', '@**Bob**,', "'@**Bob**'", '@_**Bob**', '**Bob**', '@**Bob|2**', '@**', '*', '**bold**', '**two words**', '** spaced**', '**x**y', 'a**b**', '***', '**'];
  let seed = 7;
  const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  const samples = ['@**Bob**', 'hi @**Ann Lee**', '@**Bob** @**Ann Lee**', 'hi @**User Number 7**, see you', 'ship **deploy**', '**a** **b**', '@**Bob** **now**!'];
  for (let i = 0; i < 3000; i++) {
    const n = 1 + Math.floor(rand() * 6);
    samples.push(Array.from({ length: n }, () => pieces[Math.floor(rand() * pieces.length)]).join(rand() < 0.8 ? ' ' : ''));
  }
  let shortcut = 0;
  for (const s of samples) {
    const fast = renderMessage(s, people);
    assert.deepEqual(fast, renderFull(s, people), JSON.stringify(s));
    if (fast.mentionedUserIds.length) shortcut++;
  }
  assert.ok(shortcut > 100, 'the samples exercise mentions');
});
