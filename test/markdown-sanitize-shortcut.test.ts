// The sanitizer's shortcut (safe-html.ts) gives byte for byte what the full sanitizer gives, and refuses everything outside its subset.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderContextFrom, renderUnsanitized } from '../src/lib/markdown/index.js';
import { sanitize, sanitizeInFull, sanitizeShortcut } from '../src/lib/markdown/sanitize.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const CORPUS = path.resolve(ROOT, '../shared/reference/markdown_test_cases.json');

const ctx = renderContextFrom([{ id: 7, full_name: 'Iago "the <b>" & co' }, { id: 8, full_name: 'Cordelia' }], {
  groups: [{ id: 3, name: 'support' }],
  streams: [{ id: 5, name: 'design & "build"' }],
  linkifiers: [{ id: 1, pattern: '#(?P<id>[0-9]+)', url_template: 'https://tracker.example/{id}' }],
  realmEmoji: [{ id: '1', name: 'parrot', url: '/user_avatars/1/emoji/parrot.png' }],
  realmUrl: 'http://zulip.testserver',
  translateEmoticons: true,
});

/** Chat-like messages through every feature the renderer has, besides the corpus. */
const MESSAGES = [
  'Deploy is done: see **the notes** at https://example.com/notes and ping me with questions.',
  'Say "hello" & <wave> to @**Cordelia**, @**Iago "the <b>" & co** and @*support* in #**design & "build"**',
  '> quoted\n\n* one\n* two\n\n1. a\n2. b',
  '```python\nprint("<hi>")\n```\n\n`inline & <code>`',
  '| a | b |\n|---|:-:|\n| 1 | 2 |',
  ':parrot: :smile: :) #42 ~~gone~~ *em* [link](https://example.com/?a=1&b="2") ![img](https://example.com/x.png)',
  '# Heading\n\n---\n\n<time:2024-01-01T00:00:00Z> $$x^2$$ $$\\frac{1}{2}$$',
  '/me waves\nsecond line\nthird line',
  '[relative](/user_uploads/1/ab/file.pdf) [mail](mailto:a@example.com) [bad](javascript:alert(1))',
  '@**all** @_**Cordelia** ||spoiler||\n```spoiler title\nhidden\n```',
];

/** The full sanitizer's answer and the shortcut's must be the same text. */
function same(html: string): boolean {
  assert.equal(sanitize(html), sanitizeInFull(html), `differs for ${JSON.stringify(html)}`);
  return sanitizeShortcut(html) !== null;
}

test('rendered messages and the whole Markdown corpus sanitize to the same text by either path; most take the shortcut', () => {
  const inputs = [...MESSAGES];
  if (fs.existsSync(CORPUS)) {
    const corpus = JSON.parse(fs.readFileSync(CORPUS, 'utf8')) as { regular_tests: { input: string }[]; linkify_tests: [string, string, string][] };
    inputs.push(...corpus.regular_tests.map((c) => c.input), ...corpus.linkify_tests.map(([input]) => input));
  } else if (process.env.CI) assert.fail(`${CORPUS} is absent; CI requires it.`);
  let shortcut = 0;
  for (const input of inputs) if (same(renderUnsanitized(input, ctx))) shortcut++;
  // The shortcut is worth having only if the usual output takes it.
  assert.ok(shortcut > inputs.length / 2, `${shortcut} of ${inputs.length} took the shortcut`);
  assert.ok(same(renderUnsanitized(MESSAGES[0], ctx)) && same(renderUnsanitized(MESSAGES[1], ctx)), 'everyday messages take the shortcut');
});

test('the shortcut refuses scripts, handlers, styles, unsafe URLs, entities it would change and odd markup', () => {
  const refused = [
    '<script>alert(1)</script>',
    '<p onclick="alert(1)">x</p>',
    '<p style="color: red">x</p>',
    '<a href="javascript:alert(1)">x</a>',
    '<a href="JaVaScRiPt:alert(1)">x</a>',
    '<a href="java&#115;cript:alert(1)">x</a>',
    '<a href="&#106;avascript:alert(1)">x</a>',
    '<a href=" javascript:alert(1)">x</a>',
    '<a href="java\tscript:alert(1)">x</a>',
    '<a href="//evil.example/">x</a>',
    '<a href="/\\evil.example/">x</a>',
    '<a href="relative/path">x</a>',
    '<img src="data:image/png;base64,AAAA">',
    '<img src="mailto:a@example.com">',
    '<img src="https://example.com/x.png" onerror="alert(1)">',
    '<a href="https://example.com" href="javascript:alert(1)">x</a>',
    '<a href=https://example.com>x</a>',
    '<a href=\'https://example.com\'>x</a>',
    '<span class="">x</span>',
    '<P>x</P>',
    '<p>unclosed',
    '</p>',
    '<p><div>x</div></p>',
    '<ul><li>a<li>b</li></li></ul>',
    '<br/>',
    '<br />',
    '<p>a</br></p>',
    '<!-- comment --><p>x</p>',
    '<p>a > b</p>',
    '<p>AT&T</p>',
    '<p>&nbsp;</p>',
    '<p>&#39;</p>',
    '<p title="&#39;">x</p>',
    '<iframe src="https://example.com"></iframe>',
    '<math><mi>x</mi></math>',
    '<p>nul\0</p>',
  ];
  for (const html of refused) {
    assert.equal(sanitizeShortcut(html), null, `took ${JSON.stringify(html)}`);
    assert.equal(sanitize(html), sanitizeInFull(html));
  }
  assert.equal(sanitizeShortcut('<p>say &quot;hi&quot; &amp; &lt;b&gt;</p>'), '<p>say "hi" &amp; &lt;b&gt;</p>', 'quotes in text are written plain, as the sanitizer writes them');
  assert.equal(sanitizeShortcut('<p><a href="https://example.com/?a=1&amp;b=&quot;2&quot;" title="x">y</a><br>\n<img src="/user_uploads/x.png" alt="x"></p>\n'), '<p><a href="https://example.com/?a=1&amp;b=&quot;2&quot;" title="x">y</a><br>\n<img src="/user_uploads/x.png" alt="x"></p>\n');
});

test('random markup built from the renderer’s pieces and hostile ones sanitizes the same by either path', () => {
  const pieces = [
    '<p>', '</p>', '<a href="https://e.example/?q=1&amp;r=2">', '<a href="javascript:x">', '<a href="/x">', '<a href="#y">', '</a>', '<br>', '<br />',
    '<strong>', '</strong>', '<em>', '</em>', '<span class="user-mention" data-user-id="7">', '</span>', '<div class="codehilite">', '</div>',
    '<ul>', '</ul>', '<li>', '</li>', '<table>', '</table>', '<tr>', '</tr>', '<td>', '</td>', '<th>', '</th>', '<tbody>', '</tbody>', '<thead>', '</thead>',
    '<img src="https://e.example/x.png" alt="i">', '<img src="//e.example/x.png">', '<hr>', '<pre>', '</pre>', '<code>', '</code>', '<script>', '</script>',
    'text', ' ', '\n', '&amp;', '&lt;', '&gt;', '&quot;', '&#39;', '&nbsp;', '"', "'", '>', '&', 'é', '😀', '<!--', '-->', '<x-y>', '</x-y>',
    '<p title="&quot;a&quot;">', '<p title="&#39;">', '<p style="top:1px">', '<p onclick="a">', '<span class="">',
  ];
  let seed = 12345;
  const random = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
  const pick = <T>(list: T[]): T => list[Math.floor(random() * list.length)];
  // Well-nested elements too (the shortcut's whole domain), with the nestings the parser reorders.
  const elements: [string, string][] = [
    ['<p>', '</p>'], ['<div class="x">', '</div>'], ['<ul>', '</ul>'], ['<li>', '</li>'], ['<blockquote>', '</blockquote>'], ['<table>', '</table>'],
    ['<tbody>', '</tbody>'], ['<thead>', '</thead>'], ['<tr>', '</tr>'], ['<td>', '</td>'], ['<th>', '</th>'], ['<pre>', '</pre>'], ['<h1>', '</h1>'],
    ['<strong>', '</strong>'], ['<a href="https://e.example/?a=1&amp;b=&quot;">', '</a>'], ['<a href="/#narrow/x">', '</a>'], ['<a href="//e.example">', '</a>'],
    ['<span class="user-mention" data-user-id="7" title="&lt;b&gt;">', '</span>'], ['<code>', '</code>'], ['<p title="&#39;">', '</p>'],
  ];
  const texts = ['text', ' ', '\n', '&amp;', '&lt;', '&gt;', '&quot;', '&#39;', '"', "'", 'é', '😀', '>', '<br>', '<hr>', '<img src="https://e.example/i.png" alt="i">'];
  const tree = (depth: number): string => {
    let html = '';
    const n = 1 + Math.floor(random() * 3);
    for (let i = 0; i < n; i++) {
      if (depth > 0 && random() < 0.6) {
        const [open, close] = pick(elements);
        html += open + tree(depth - 1) + close;
      } else html += pick(texts);
    }
    return html;
  };
  let shortcut = 0;
  for (let n = 0; n < 3000; n++) {
    let html = '';
    if (n % 2) html = tree(4);
    else for (let i = 0, len = 1 + Math.floor(random() * 12); i < len; i++) html += pick(pieces);
    if (same(html)) shortcut++;
  }
  assert.ok(shortcut > 300, `only ${shortcut} random strings took the shortcut: the comparison must exercise it`);
});
