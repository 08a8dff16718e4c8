// The structures the original's clients parse (code tokens, math, emoji, spoilers), compared byte for byte.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { renderContextFrom, renderMessage } from '../src/lib/markdown/index.js';
import { CODE_CASES, type ClientCase } from './markdown-client-cases.js';

const ctx = renderContextFrom([], { realmUrl: 'http://zulip.testserver' });

function check(cases: ClientCase[]): void {
  for (const c of cases) assert.equal(renderMessage(c.input, ctx).html, c.expected_output, c.name);
}

test('code blocks carry the Pygments token classes of the original, whitespace tokens and hll lines', () => check(CODE_CASES));

test('whitespace tokens follow the lexer: C-like languages have them, Python has none', () => {
  assert.match(renderMessage('```c\nint x = 1;\n```', ctx).html, /<span class="kt">int<\/span><span class="w"> <\/span><span class="n">x<\/span>/);
  assert.match(renderMessage('```python\nx = 1\n```', ctx).html, /<span class="n">x<\/span> <span class="o">=<\/span>/);
});

test('a token spanning lines is cut at each line end, as Pygments does', () => {
  assert.match(renderMessage('```c\n/* a\nb */\n```', ctx).html, /<span class="cm">\/\* a<\/span>\n<span class="cm">b \*\/<\/span>\n/);
});

test('hl_lines only counts when the first line marks the language, and a malformed list marks nothing', () => {
  assert.doesNotMatch(renderMessage('```python\n:::python hl_lines="1"\nx\n```', ctx).html, /hll/);
  assert.doesNotMatch(renderMessage('```\n:::python hl_lines="a"\nx\n```', ctx).html, /hll/);
});

const CORPUS = new URL('../../../shared/reference/markdown_test_cases.json', import.meta.url);
/** Corpus cases rendered byte for byte as the original (not only equal after normalizing) when this floor was set. */
const BYTE_EXACT_FLOOR = 164;

test('the original corpus, byte for byte: code escapes, KaTeX styles and annotations as the original writes them', (t) => {
  if (!fs.existsSync(CORPUS)) return t.skip('../shared/reference is absent');
  const corpus = JSON.parse(fs.readFileSync(CORPUS, 'utf8')) as { regular_tests: (ClientCase & { translate_emoticons?: boolean })[] };
  let exact = 0;
  for (const c of corpus.regular_tests) {
    const own = renderContextFrom([], { realmUrl: 'http://zulip.testserver', translateEmoticons: c.translate_emoticons === true });
    if (renderMessage(c.input, own).html === c.expected_output) exact++;
  }
  console.log(`Markdown corpus byte for byte: ${exact}/${corpus.regular_tests.length}`);
  assert.ok(exact >= BYTE_EXACT_FLOOR, `${exact} < ${BYTE_EXACT_FLOOR}`);
});
