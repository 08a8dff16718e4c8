// content_html_diff: a word-level diff of two rendered messages, marking inserted and deleted text
// with highlight spans while keeping the new version's markup, so the result is well-formed HTML.

/** Tags, runs of whitespace, and words (entities stay inside their word). */
const TOKEN = /<[^>]*>|\s+|[^\s<]+/g;
/** Past this many token pairs the diff falls back to "all deleted, all inserted" (bounded work). */
const MAX_CELLS = 4_000_000;

const isTag = (t: string) => t.startsWith('<');
const span = (cls: string, text: string) => `<span class="${cls}">${text}</span>`;

function tokens(html: string): string[] {
  return html.match(TOKEN) ?? [];
}

type Op = ['=' | '-' | '+', string];

/** Longest-common-subsequence edit script between two token lists. */
function diffTokens(a: string[], b: string[]): Op[] {
  const n = a.length;
  const m = b.length;
  if (n * m > MAX_CELLS) return [...a.map((t): Op => ['-', t]), ...b.map((t): Op => ['+', t])];
  // lcs[i][j] = LCS length of a[i..] and b[j..], one flat array.
  const w = m + 1;
  const lcs = new Uint32Array((n + 1) * w);
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i * w + j] = a[i] === b[j] ? lcs[(i + 1) * w + j + 1] + 1 : Math.max(lcs[(i + 1) * w + j], lcs[i * w + j + 1]);
    }
  }
  const out: Op[] = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (a[i] === b[j]) {
      out.push(['=', a[i]]);
      i++;
      j++;
    } else if (lcs[(i + 1) * w + j] >= lcs[i * w + j + 1]) {
      out.push(['-', a[i++]]);
    } else {
      out.push(['+', b[j++]]);
    }
  }
  while (i < n) out.push(['-', a[i++]]);
  while (j < m) out.push(['+', b[j++]]);
  return out;
}

/**
 * The new HTML with inserted text in `highlight_text_inserted` spans and removed text (from the old
 * HTML) in `highlight_text_deleted` spans. Removed tags are dropped and added tags kept, so the markup
 * is exactly the new version's; runs of changed text are wrapped whole.
 */
export function htmlDiff(oldHtml: string, newHtml: string): string {
  const ops = diffTokens(tokens(oldHtml), tokens(newHtml));
  let out = '';
  let run: { kind: '-' | '+'; text: string } | null = null;
  const flush = () => {
    if (run && run.text.trim()) out += span(run.kind === '+' ? 'highlight_text_inserted' : 'highlight_text_deleted', run.text);
    else if (run) out += run.text;
    run = null;
  };
  for (const [op, t] of ops) {
    if (op === '=') {
      flush();
      out += t;
    } else if (isTag(t)) {
      flush();
      if (op === '+') out += t;
    } else {
      if (run && run.kind !== op) flush();
      run ??= { kind: op, text: '' };
      run.text += t;
    }
  }
  flush();
  return `<div>${out}</div>`;
}
