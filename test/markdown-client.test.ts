// The structures the original's clients parse (code tokens, math, emoji, spoilers), compared byte for byte.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { createHmac } from 'node:crypto';
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
const BYTE_EXACT_FLOOR = 179;
/** The original's test settings' image proxy (CAMO_URI, CAMO_KEY "dummy"), which signed its video cases. */
const CORPUS_CAMO = { uri: 'https://external-content.zulipcdn.net/external_content/', key: 'dummy' };

test('the original corpus, byte for byte: code escapes, KaTeX styles and annotations as the original writes them', (t) => {
  if (!fs.existsSync(CORPUS)) return t.skip('../shared/reference is absent');
  const corpus = JSON.parse(fs.readFileSync(CORPUS, 'utf8')) as { regular_tests: (ClientCase & { translate_emoticons?: boolean })[] };
  let exact = 0;
  for (const c of corpus.regular_tests) {
    const own = renderContextFrom([], { realmUrl: 'http://zulip.testserver', translateEmoticons: c.translate_emoticons === true, camo: CORPUS_CAMO });
    if (renderMessage(c.input, own).html === c.expected_output) exact++;
  }
  console.log(`Markdown corpus byte for byte: ${exact}/${corpus.regular_tests.length}`);
  assert.ok(exact >= BYTE_EXACT_FLOOR, `${exact} < ${BYTE_EXACT_FLOOR}`);
});

/** KaTeX's display markup for one formula, from a math block holding only it. */
const display = (tex: string): string => renderMessage('```math\n' + tex + '\n```', ctx).html.replace(/^<p>|<\/p>$/g, '');

test('math: each blank-line-separated formula of a block is its own display, all in one paragraph', () => {
  const html = renderMessage('```math\na^2\n\nb^2\n\n\\frac{\n```', ctx).html;
  assert.equal(html, `<p>${display('a^2')}\n\n${display('b^2')}\n\n<span class="tex-error">\\frac{</span></p>`);
  assert.match(display('a^2'), /^<span class="katex-display"><span class="katex"><span class="katex-mathml"><math xmlns="http:\/\/www.w3.org\/1998\/Math\/MathML" display="block"><semantics>.*<annotation encoding="application\/x-tex">a\^2<\/annotation><\/semantics><\/math><\/span><span class="katex-html" aria-hidden="true">/s);
});

test('math keeps KaTeX\'s styles with their trailing ";" and its annotation, also in quotes and lists', () => {
  const inline = renderMessage('$$x$$', ctx).html.replace(/^<p>|<\/p>$/g, '');
  assert.match(inline, /style="height:0.4306em;"/);
  assert.match(inline, /<annotation encoding="application\/x-tex">x<\/annotation>/);
  assert.equal(renderMessage('> $$x$$', ctx).html, `<blockquote>\n<p>${inline}</p>\n</blockquote>`);
  assert.equal(renderMessage('- $$x$$', ctx).html, `<ul>\n<li>${inline}</li>\n</ul>`);
  assert.equal(renderMessage('```quote\n```math\na^2\n```\n```', ctx).html, `<blockquote>\n<p>${display('a^2')}</p>\n</blockquote>`);
  assert.equal(renderMessage("```math\n\\text{it's}\n```", ctx).html.includes('<annotation encoding="application/x-tex">\\text{it&#x27;s}</annotation>'), true);
});

test('spoiler headers are Markdown blocks: headings and lists; a preview closes the content without a line break', () => {
  assert.equal(
    renderMessage('```spoiler ## Heading\ntext\n```', ctx).html,
    '<div class="spoiler-block"><div class="spoiler-header">\n<h2>Heading</h2>\n</div><div class="spoiler-content" aria-hidden="true">\n<p>text</p>\n</div></div>',
  );
  assert.equal(
    renderMessage('```spoiler - item *em*\ntext http://example.com/x.png\n```', ctx).html,
    '<div class="spoiler-block"><div class="spoiler-header">\n<ul>\n<li>item <em>em</em></li>\n</ul>\n</div><div class="spoiler-content" aria-hidden="true">\n' +
      '<p>text <a href="http://example.com/x.png">http://example.com/x.png</a></p>\n' +
      '<div class="message_inline_image"><a href="http://example.com/x.png"><img data-src-fullsize="/thumbnail?url=http%3A%2F%2Fexample.com%2Fx.png&amp;size=full" src="/thumbnail?url=http%3A%2F%2Fexample.com%2Fx.png&amp;size=thumbnail"></a></div></div></div>',
  );
});

const emojiCtx = renderContextFrom([{ id: 4, full_name: 'King Hamlet' }], {
  realmUrl: 'http://zulip.testserver',
  groups: [{ id: 20, name: 'hamletcharacters' }],
  realmEmoji: [{ id: '9', name: 'green_tick', url: '/user_avatars/2/emoji/images/9.png' }],
});
const span = (name: string, code: string) => `<span aria-label="${name.replace(/_/g, ' ')}" class="emoji emoji-${code}" role="img" title="${name.replace(/_/g, ' ')}">:${name}:</span>`;

test('emoji: sequences keep every code point of the original\'s code, custom emoji are images, unknown sequences stay text', () => {
  // The corpus (unicode_emoji, emoji_sequence_*) has the original turn emoji characters into spans
  // whose code is its table's: every code point, variation selectors dropped.
  assert.equal(
    renderMessage('🏳️‍🌈 👨‍👩‍👧 1️⃣ 🇫🇷', emojiCtx).html,
    `<p>${span('rainbow_flag', '1f3f3-200d-1f308')} ${span('family_man_woman_girl', '1f468-200d-1f469-200d-1f467')} ${span('one', '0031-20e3')} ${span('flag_france', '1f1eb-1f1f7')}</p>`,
  );
  assert.equal(renderMessage(':rainbow_flag:', emojiCtx).html, `<p>${span('rainbow_flag', '1f3f3-200d-1f308')}</p>`);
  assert.equal(renderMessage(':green_tick:', emojiCtx).html, '<p><img alt=":green_tick:" class="emoji" src="/user_avatars/2/emoji/images/9.png" title="green tick"></p>');
  assert.equal(renderMessage('☺ 👍🏽', emojiCtx).html, '<p>☺ 👍🏽</p>');
});

test('mentions carry all their classes; time keeps the original\'s element', () => {
  assert.equal(
    renderMessage('@**King Hamlet** @_**King Hamlet** @*hamletcharacters* @_*hamletcharacters* @**all** @_**all** @**topic**', emojiCtx).html,
    '<p><span class="user-mention" data-user-id="4">@King Hamlet</span> <span class="user-mention silent" data-user-id="4">King Hamlet</span> ' +
      '<span class="user-group-mention" data-user-group-id="20">@hamletcharacters</span> <span class="user-group-mention silent" data-user-group-id="20">hamletcharacters</span> ' +
      '<span class="user-mention channel-wildcard-mention" data-user-id="*">@all</span> <span class="user-mention channel-wildcard-mention silent" data-user-id="*">all</span> ' +
      '<span class="topic-mention">@topic</span></p>',
  );
  assert.equal(renderMessage('<time:2024-01-01T10:00:00Z>', emojiCtx).html, '<p><time datetime="2024-01-01T10:00:00Z">2024-01-01T10:00:00Z</time></p>');
});

test('lexer habits: Java attributes and bracket operators, C preprocessor lines, TypeScript types, JavaScript name classes', () => {
  const java = renderMessage('```java\nString[] a = System.out.x;\n```', ctx).html;
  assert.match(java, /<span class="n">String<\/span><span class="o">\[\]<\/span><span class="w"> <\/span>/);
  assert.match(java, /<span class="n">System<\/span><span class="p">\.<\/span><span class="na">out<\/span><span class="p">\.<\/span><span class="na">x<\/span>/);
  assert.match(renderMessage('```c\n#include <stdio.h>\n```', ctx).html, /<span class="cp">#include<\/span><span class="w"> <\/span><span class="cpf">&lt;stdio.h&gt;<\/span>/);
  assert.match(renderMessage('```ts\nlet n: number = 1;\n```', ctx).html, /<span class="kd">let<\/span><span class="w"> <\/span><span class="nx">n<\/span><span class="o">:<\/span><span class="w"> <\/span><span class="kt">number<\/span>/);
  // A block with a named language is re-serialized by the original (lxml): quotes stay plain there.
  assert.match(renderMessage("```js\nconst s = 'a';\n```", ctx).html, /<span class="s1">'a'<\/span>/);
});

test('quotes: escaped in a block without a language (Pygments), plain in one with data-code-language (lxml)', () => {
  assert.equal(renderMessage('```\nsay("it\'s")\n```', ctx).html, '<div class="codehilite"><pre><span></span><code>say(&quot;it&#39;s&quot;)\n</code></pre></div>');
  assert.match(renderMessage('```python\nsay("it\'s")\n```', ctx).html, /<span class="s2">"it's"<\/span>/);
  // PHP is lexed with startinline: an opening tag is operator and name, not one preprocessor token.
  assert.match(renderMessage('```php\n<?php\n$a = 1;\n```', ctx).html, /^<div class="codehilite" data-code-language="PHP"><pre><span><\/span><code><span class="o">&lt;\?<\/span><span class="nx">php<\/span>\n/);
});

test('whitespace as the original keeps it: trailing spaces, indented continuation lines, tight nested lists', () => {
  assert.equal(renderMessage('test  ', ctx).html, '<p>test  </p>');
  assert.equal(renderMessage('a\n  b', ctx).html, '<p>a<br>\n  b</p>');
  assert.equal(renderMessage('* a\n  more', ctx).html, '<ul>\n<li>a<br>\n  more</li>\n</ul>');
  assert.equal(renderMessage('* a \n  * b', ctx).html, '<ul>\n<li>a <ul>\n<li>b</li>\n</ul>\n</li>\n</ul>');
  assert.equal(
    renderMessage('* x http://example.com/a.png', ctx).html,
    '<ul>\n<li>x <a href="http://example.com/a.png">http://example.com/a.png</a><div class="message_inline_image"><a href="http://example.com/a.png"><img data-src-fullsize="/thumbnail?url=http%3A%2F%2Fexample.com%2Fa.png&amp;size=full" src="/thumbnail?url=http%3A%2F%2Fexample.com%2Fa.png&amp;size=thumbnail"></a></div></li>\n</ul>',
  );
});

test('video previews go through the image proxy in the original\'s camo form when the server has one', () => {
  const url = 'https://example.com/v.mp4';
  const camo = { uri: '/external_content/', key: 'k' };
  const html = renderMessage(url, renderContextFrom([], { realmUrl: 'http://zulip.testserver', camo })).html;
  const digest = createHmac('sha1', 'k').update(url).digest('hex');
  assert.match(html, new RegExp(`src="/external_content/${digest}/${Buffer.from(url).toString('hex')}"`));
  assert.match(renderMessage(url, ctx).html, /src="https:\/\/example\.com\/v\.mp4"/);
});
