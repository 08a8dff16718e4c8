// XSS payloads through every Markdown feature: the rendered HTML must carry no script, handler, style or unsafe URL.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseDocument } from 'htmlparser2';
import type { ChildNode, Element } from 'domhandler';
import { renderContextFrom, renderMessage } from '../src/lib/markdown/index.js';

const EVIL = `"><img src=x onerror=alert(1)><script>alert(1)</script>`;

const ctx = renderContextFrom([{ id: 7, full_name: `Mallory ${EVIL}` }], {
  groups: [{ id: 3, name: `crew ${EVIL}` }],
  streams: [{ id: 5, name: `chan ${EVIL}` }],
  linkifiers: [{ id: 1, pattern: '#(?P<id>[0-9]+)', url_template: 'javascript:alert({id})' }, { id: 2, pattern: 'T(?P<id>[a-z"<>]+)', url_template: 'https://t.example/{id}' }],
  realmEmoji: [{ id: '1', name: 'evil', url: 'javascript:alert(1)' }],
  realmUrl: 'http://zulip.testserver',
  translateEmoticons: true,
});

const PAYLOADS = [
  // Links and images
  '[x](javascript:alert(1))',
  '[x](JaVaScRiPt:alert(1))',
  '[x](java\tscript:alert(1))',
  '[x](&#106;avascript:alert(1))',
  '[x](javascript&colon;alert(1))',
  '[x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)',
  '[x](vbscript:msgbox(1))',
  '[x](<javascript:alert(1)>)',
  '[x](https://example.com "title\\" onmouseover=\\"alert(1))',
  '[x"onclick="alert(1)](https://example.com)',
  '![x](javascript:alert(1))',
  '![x" onerror="alert(1)](https://example.com/a.png)',
  'https://example.com/a.png" onerror="alert(1)',
  '[a](https://example.com/x.png?"><script>alert(1)</script>)',
  'https://example.com/"><svg/onload=alert(1)>.png',
  'https://example.com/a.mp4?"onerror=alert(1)',
  '<javascript:alert(1)>',
  'javascript:alert(1)',
  'data:text/html,<script>alert(1)</script>',
  // Raw HTML
  '<script>alert(1)</script>',
  '<img src=x onerror=alert(1)>',
  '<a href="javascript:alert(1)">x</a>',
  '<div style="background:url(javascript:alert(1))">x</div>',
  '<iframe src="https://evil.example"></iframe>',
  '<svg><script>alert(1)</script></svg>',
  '<style>*{color:red}</style>',
  '<math><mtext><script>alert(1)</script></mtext></math>',
  '<<script>script>alert(1)<</script>/script>',
  '**<img src=x onerror=alert(1)>**',
  '> <script>alert(1)</script>',
  '* <script>alert(1)</script>',
  '| a | b |\n|---|---|\n| <script>alert(1)</script> | <img src=x onerror=alert(1)> |',
  // Code
  '`<script>alert(1)</script>`',
  '```\n<script>alert(1)</script>\n```',
  '```html\n<script>alert(1)</script><img src=x onerror=alert(1)>\n```',
  '```"><script>alert(1)</script>\nx\n```',
  '```js" onmouseover="alert(1)\nx\n```',
  '    <script>alert(1)</script>',
  '```spoiler <img src=x onerror=alert(1)>\n<script>alert(1)</script>\n```',
  '```quote\n<script>alert(1)</script>\n```',
  // Math
  "$$<script>alert('xss')</script>$$",
  '$$\\href{javascript:alert(1)}{x}$$',
  '$$\\url{javascript:alert(1)}$$',
  '$$\\htmlClass{x" onclick="alert(1)}{x}$$',
  '$$\\htmlStyle{background:url(javascript:alert(1))}{x}$$',
  '$$\\htmlData{onclick=alert(1)}{x}$$',
  '$$\\includegraphics{javascript:alert(1)}$$',
  '```math\n\\href{javascript:alert(1)}{x}\n```',
  '$$\\color{red" onmouseover="alert(1)}{x}$$',
  // Mentions, channels, emoji, time, linkifiers with crafted data
  `@**Mallory ${EVIL}**`,
  '@**Mallory|7**',
  `@_**Mallory ${EVIL}|7**`,
  `@*crew ${EVIL}*`,
  `#**chan ${EVIL}**`,
  `#**chan ${EVIL}>topic ${EVIL}**`,
  `#**chan ${EVIL}>topic ${EVIL}@12**`,
  ':evil:',
  ':smile" onmouseover="alert(1):',
  `<time:${EVIL}>`,
  '<time:"><script>alert(1)</script>>',
  '#123',
  'T"><script>',
  '/me <script>alert(1)</script>',
];

const URL_ATTRS = new Set(['href', 'src', 'data-src-fullsize', 'data-video-original-url', 'action', 'formaction', 'xlink:href']);
const ALLOWED_TAGS = new Set(['p', 'br', 'hr', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'blockquote', 'ul', 'ol', 'li', 'table', 'thead', 'tbody', 'tr', 'th', 'td', 'strong', 'em', 'del', 'code', 'pre', 'span', 'div', 'a', 'img', 'video', 'time', 'svg', 'path', 'line']);

function problems(html: string): string[] {
  const out: string[] = [];
  const visit = (nodes: ChildNode[], inMath: boolean): void => {
    for (const n of nodes) {
      if (n.type === 'script' || n.type === 'style') out.push(`<${(n as Element).name}> element`);
      if (n.type !== 'tag' && n.type !== 'script' && n.type !== 'style') continue;
      const el = n as Element;
      const math = inMath || el.name === 'math';
      if (!ALLOWED_TAGS.has(el.name) && !math) out.push(`<${el.name}> element`);
      for (const [k, v] of Object.entries(el.attribs)) {
        const name = k.toLowerCase();
        if (name.startsWith('on')) out.push(`${name} handler`);
        if (URL_ATTRS.has(name) && !/^(https?:|mailto:|tel:|sms:|\/|#|$)/i.test(v.trim())) out.push(`${name}=${v}`);
        if (name === 'style' && /url\(|expression|javascript|@import|behavior/i.test(v)) out.push(`style=${v}`);
        if (name === 'style' && !/^(\s*[a-z-]+\s*:\s*-?[\d.]+(em|px|%)?\s*;?|\s*position\s*:\s*relative\s*;?|\s*text-align\s*:\s*\w+\s*;?|\s*(background-)?color\s*:\s*(#[0-9a-f]{3,6}|[a-z]+)\s*;?)*$/i.test(v)) out.push(`style=${v}`);
      }
      visit(el.children, math);
    }
  };
  visit(parseDocument(html).children, false);
  return out;
}

for (const payload of PAYLOADS) {
  test(`inert: ${JSON.stringify(payload).slice(0, 80)}`, () => {
    const html = renderMessage(payload, ctx).html;
    assert.deepEqual(problems(html), [], html);
  });
}

test('the checker itself catches what it should', () => {
  assert.ok(problems('<a href="javascript:alert(1)">x</a>').length);
  assert.ok(problems('<img src=x onerror=alert(1)>').length);
  assert.ok(problems('<script>alert(1)</script>').length);
  assert.ok(problems('<span style="background:url(x)">x</span>').length);
  assert.ok(problems('<iframe></iframe>').length);
  assert.deepEqual(problems('<span style="height:0.8em;vertical-align:-0.2em;">x</span>'), []);
});
