// Markdown rendering: a realistic message mix through POST /messages/render, and the original's
// test corpus rendered in-process (the renderer's own time, without HTTP).
import { api } from '../api.js';
import type { FixtureMeta } from '../bulk-load.js';
import type { Sizes } from '../sizes.js';
import fs from 'node:fs';
import path from 'node:path';
import { summarize, timeSequential } from '../stats.js';
import { renderContextFrom, renderMessage } from '../../src/lib/markdown/index.js';

const CORPUS = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../../../shared/reference/markdown_test_cases.json');

/** Median and p99 render time over the corpus inputs (several rounds); NaN-free zeros when the corpus is absent. */
function renderCorpus(rounds: number, log: (s: string) => void): Record<string, number> {
  if (!fs.existsSync(CORPUS)) {
    log('  render corpus: ../shared/reference is absent, skipped');
    return { render_corpus_p50_ms: 0, render_corpus_p99_ms: 0, render_corpus_cases: 0 };
  }
  const inputs = (JSON.parse(fs.readFileSync(CORPUS, 'utf8')) as { regular_tests: { input: string }[] }).regular_tests.map((t) => t.input);
  const ctx = renderContextFrom([]);
  for (const input of inputs) renderMessage(input, ctx); // warm-up: lazy modules, JIT
  const times: number[] = [];
  for (let r = 0; r < rounds; r++) {
    for (const input of inputs) {
      const t0 = performance.now();
      renderMessage(input, ctx);
      times.push(performance.now() - t0);
    }
  }
  const s = summarize(times);
  log(`  render corpus (${inputs.length} cases × ${rounds}): p50 ${s.p50} ms, p99 ${s.p99} ms`);
  return { render_corpus_p50_ms: s.p50, render_corpus_p99_ms: s.p99, render_corpus_cases: inputs.length };
}

/** A mix like a team chat's: short replies, emphasis, links, mentions, emoji, code, quotes, lists, a long post. */
const MIX = [
  'ok, thanks!',
  'Sounds good to me :+1:',
  'Can you take a look at **the failing build** when you get a chance?',
  '@**Bench root 1** the deploy finished, see https://example.com/deploys/1234',
  'I think we should _not_ merge this before the release. Thoughts @**Bench root 2**?',
  '```\n$ npm test\n  ✔ 412 passing (38s)\n```\nall green now',
  '> is the migration reversible?\n\nYes, `down()` restores the old column.',
  'Agenda for tomorrow:\n1. release status\n2. on-call handover\n3. **retro** items\n\n- [link](https://example.com/agenda)',
  'Lunch? :pizza: :coffee:',
  'Here is the query plan:\n```sql\nEXPLAIN SELECT id FROM messages WHERE recipient_id = 5 AND topic_key = \'t\' ORDER BY id DESC LIMIT 101;\n```\nIt uses `messages_recipient_topic`.',
  '| metric | before | after |\n|---|---|---|\n| p50 | 12 ms | 4 ms |\n| p99 | 80 ms | 15 ms |',
  Array.from({ length: 12 }, (_, i) => `Paragraph ${i + 1}: the quick brown fox jumps over the lazy dog, with *some emphasis*, a [link](https://example.com/${i}) and :smile:.`).join('\n\n'),
];

export async function renderScenario(url: string, meta: FixtureMeta, z: Sizes, log: (s: string) => void): Promise<Record<string, number>> {
  const cred = meta.root.owner;
  const times = await timeSequential(z.renderRequests, 10, async (i) => {
    const r = await api(url, cred, 'POST', 'messages/render', { content: MIX[Math.abs(i) % MIX.length] });
    if (r.status !== 200) throw new Error(`POST /messages/render → ${r.status} ${JSON.stringify(r.body).slice(0, 300)}`);
    return r.ms;
  });
  const s = summarize(times);
  log(`  render (${MIX.length} kinds of message): p50 ${s.p50} ms, p99 ${s.p99} ms`);
  return { render_p50_ms: s.p50, render_p99_ms: s.p99, ...renderCorpus(z.renderRequests >= 400 ? 20 : 2, log) };
}
