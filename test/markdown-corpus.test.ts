// The original's Markdown test corpus (../shared/reference/) rendered and compared as normalized HTML.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseDocument } from 'htmlparser2';
import type { ChildNode } from 'domhandler';
import { renderContextFrom, renderMessage } from '../src/lib/markdown/index.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const CORPUS = path.resolve(ROOT, '../shared/reference/markdown_test_cases.json');

/** Cases we deliberately render differently; each is explained in docs/markdown.md. */
const DOCUMENTED_DIFFERENCES = new Set<string>([]);
/** The counts reached when these floors were set; fewer passing cases is a regression. */
const REGULAR_FLOOR = 179;
const LINKIFY_FLOOR = 71;

interface RegularCase {
  name: string;
  input: string;
  expected_output: string;
  translate_emoticons?: boolean;
}
type LinkifyCase = [input: string, format: string, url: string];

const BLOCK = new Set(['p', 'div', 'ul', 'ol', 'li', 'blockquote', 'table', 'thead', 'tbody', 'tr', 'th', 'td', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'pre', 'hr']);
const VOID = new Set(['br', 'img', 'hr']);
const esc = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

function normStyle(style: string): string {
  return style
    .split(';')
    .map((d) => d.trim())
    .filter(Boolean)
    .map((d) => {
      const i = d.indexOf(':');
      return `${d.slice(0, i).trim().toLowerCase()}:${d.slice(i + 1).trim()}`;
    })
    .join(';');
}

/**
 * HTML in a canonical form that ignores what a browser ignores: attribute order and quoting,
 * entity spelling, style declaration spacing, and (outside <pre>) runs of whitespace and
 * whitespace next to block boundaries.
 */
export function normalizeHtml(html: string): string {
  const walk = (nodes: ChildNode[], inPre: boolean, parentBlock: boolean): string => {
    const parts: { text: boolean; block: boolean; s: string }[] = [];
    for (const n of nodes) {
      if (n.type === 'text') {
        parts.push({ text: true, block: false, s: inPre ? esc(n.data) : esc(n.data.replace(/\s+/g, ' ')) });
      } else if (n.type === 'tag') {
        const attrs = Object.entries(n.attribs)
          .map(([k, v]) => [k.toLowerCase(), k === 'style' ? normStyle(v) : v] as const)
          .sort(([a], [b]) => (a < b ? -1 : 1))
          .map(([k, v]) => ` ${k}="${esc(v)}"`)
          .join('');
        const open = `<${n.name}${attrs}>`;
        const inner = VOID.has(n.name) ? '' : walk(n.children, inPre || n.name === 'pre', BLOCK.has(n.name));
        parts.push({ text: false, block: BLOCK.has(n.name), s: VOID.has(n.name) ? open : `${open}${inner}</${n.name}>` });
      }
    }
    if (!inPre) {
      for (let i = 0; i < parts.length; i++) {
        if (!parts[i].text) continue;
        const prevBlock = i === 0 ? parentBlock : parts[i - 1].block;
        const nextBlock = i === parts.length - 1 ? parentBlock : parts[i + 1].block;
        if (prevBlock) parts[i].s = parts[i].s.replace(/^ /, '');
        if (nextBlock) parts[i].s = parts[i].s.replace(/ $/, '');
      }
    }
    return parts.map((p) => p.s).join('');
  };
  return walk(parseDocument(html, { decodeEntities: true }).children, false, true);
}

function linkifyExpected([, format, url]: LinkifyCase): string {
  if (!url || !format.includes('%s')) return format;
  const href = url.startsWith('http') ? url : url.includes('@') ? `mailto:${url}` : `http://${url}`;
  return format.replace('%s', `<a href="${href}">${url}</a>`);
}

/** The image proxy of the original's test settings (CAMO_URI, and "dummy" as CAMO_KEY), which its video cases were signed with. */
export const CORPUS_CAMO = { uri: 'https://external-content.zulipcdn.net/external_content/', key: 'dummy' };
const fixtures = (translateEmoticons = false) => renderContextFrom([], { realmUrl: 'http://zulip.testserver', translateEmoticons, camo: CORPUS_CAMO });

test('the original Markdown corpus renders to the expected HTML', (t) => {
  if (!fs.existsSync(CORPUS)) {
    const notice = `NOTICE: ${CORPUS} is absent; the Markdown corpus was not run.`;
    console.log(notice);
    if (process.env.CI) assert.fail(`${notice} CI requires it.`);
    t.skip(notice);
    return;
  }
  const corpus = JSON.parse(fs.readFileSync(CORPUS, 'utf8')) as { regular_tests: RegularCase[]; linkify_tests: LinkifyCase[] };
  const verbose = !!process.env.MARKDOWN_CORPUS_VERBOSE;
  const failures: string[] = [];
  let regular = 0;
  for (const c of corpus.regular_tests) {
    const got = normalizeHtml(renderMessage(c.input, fixtures(c.translate_emoticons)).html);
    const want = normalizeHtml(c.expected_output);
    if (got === want) regular++;
    else {
      failures.push(c.name);
      if (verbose) console.log(`--- ${c.name}\n input: ${JSON.stringify(c.input)}\n want:  ${want}\n got:   ${got}`);
    }
  }
  let linkify = 0;
  for (const c of corpus.linkify_tests) {
    const got = normalizeHtml(renderMessage(c[0], fixtures()).html);
    const want = normalizeHtml(linkifyExpected(c));
    if (got === want) linkify++;
    else {
      failures.push(`linkify: ${c[0]}`);
      if (verbose) console.log(`--- linkify ${JSON.stringify(c[0])}\n want:  ${want}\n got:   ${got}`);
    }
  }
  const total = corpus.regular_tests.length + corpus.linkify_tests.length;
  console.log(
    `Markdown corpus: ${regular}/${corpus.regular_tests.length} regular, ${linkify}/${corpus.linkify_tests.length} linkify, ` +
      `${(((regular + linkify) / total) * 100).toFixed(1)}% overall`,
  );
  if (failures.length) console.log(`Not matching: ${failures.join(', ')}`);
  const undocumented = failures.filter((f) => !DOCUMENTED_DIFFERENCES.has(f));
  assert.deepEqual(undocumented, [], 'every difference from the corpus is documented in docs/markdown.md');
  assert.ok(regular >= REGULAR_FLOOR, `regular cases passing: ${regular} < floor ${REGULAR_FLOOR}`);
  assert.ok(linkify >= LINKIFY_FLOOR, `linkify cases passing: ${linkify} < floor ${LINKIFY_FLOOR}`);
});

test('the normalizer ignores only what a browser ignores', () => {
  assert.equal(normalizeHtml('<p>a  <b x="1" a="2">b</b>\n</p>'), normalizeHtml('<p>a <b a="2" x="1">b</b></p>'));
  assert.equal(normalizeHtml('<p>&#39;</p>'), normalizeHtml("<p>'</p>"));
  assert.notEqual(normalizeHtml('<pre>a  b</pre>'), normalizeHtml('<pre>a b</pre>'));
  assert.notEqual(normalizeHtml('<span>a</span> <span>b</span>'), normalizeHtml('<span>a</span><span>b</span>'));
  assert.notEqual(normalizeHtml('<p><em>a</em></p>'), normalizeHtml('<p>a</p>'));
});
