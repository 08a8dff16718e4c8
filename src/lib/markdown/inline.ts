// Inline differences from CommonMark: no underscore emphasis, emphasis within one line, ~~strike~~ without flanking rules.
import type { MarkdownIt, StateCore, StateInline } from 'markdown-it';

/** A run of underscores is plain text: _foo_ and __foo__ are not emphasis. */
function underscoreRule(state: StateInline, silent: boolean): boolean {
  if (state.src.charCodeAt(state.pos) !== 0x5f /* _ */) return false;
  let end = state.pos;
  while (end < state.posMax && state.src.charCodeAt(end) === 0x5f) end++;
  if (!silent) state.pending += state.src.slice(state.pos, end);
  state.pos = end;
  return true;
}

/** ~~text~~ on one line, spaces inside allowed, no ~ inside or around; the content is inline Markdown. */
function strikeRule(state: StateInline, silent: boolean): boolean {
  const { src, pos } = state;
  if (src.charCodeAt(pos) !== 0x7e || src.charCodeAt(pos - 1) === 0x7e) return false;
  const m = /^~~([^~\n]+?)~~(?!~)/.exec(src.slice(pos, state.posMax));
  if (!m) return false;
  if (!silent) {
    state.push('s_open', 'del', 1).markup = '~~';
    const oldMax = state.posMax;
    state.pos = pos + 2;
    state.posMax = pos + 2 + m[1].length;
    state.md.inline.tokenize(state);
    state.posMax = oldMax;
    state.push('s_close', 'del', -1).markup = '~~';
  }
  state.pos = pos + m[0].length;
  return true;
}

/** Code spans keep their inner spaces (CommonMark strips one on each side). */
function keepCodeSpaces(md: MarkdownIt): void {
  const rules = (md.inline.ruler as unknown as { __rules__: { name: string; fn: (s: StateInline, silent: boolean) => boolean }[] }).__rules__;
  const backticks = rules.find((r) => r.name === 'backticks')!.fn;
  md.inline.ruler.at('backticks', (state, silent) => {
    const start = state.pos;
    const count = state.tokens.length;
    if (!backticks(state, silent)) return false;
    const tok = state.tokens[state.tokens.length - 1];
    if (!silent && state.tokens.length > count && tok.type === 'code_inline') {
      const n = tok.markup.length;
      tok.content = state.src.slice(start + n, state.pos - n).replace(/\n/g, ' ');
    }
    return true;
  });
}

interface Delimiter {
  marker: number;
  token: number;
  end: number;
}

/** Emphasis does not pair across a line break (**a\nb** stays literal). */
function unpairAcrossLines(state: StateInline): boolean {
  const unpair = (delims: Delimiter[]): void => {
    for (const d of delims) {
      if (d.marker !== 0x2a || d.end < 0) continue;
      const closer = delims[d.end];
      for (let t = d.token + 1; t < closer.token; t++) {
        if (state.tokens[t].type === 'softbreak' || state.tokens[t].type === 'hardbreak') {
          d.end = -1;
          break;
        }
      }
    }
  };
  unpair(state.delimiters as unknown as Delimiter[]);
  for (const meta of state.tokens_meta) if (meta?.delimiters) unpair(meta.delimiters as unknown as Delimiter[]);
  return false;
}

/** ***a*** renders as <strong><em>a</em></strong>, as in the original. */
function strongOutside(state: StateCore): void {
  for (const block of state.tokens) {
    const t = block.children;
    if (block.type !== 'inline' || !t) continue;
    // Emphasis leaves empty text tokens where its delimiters were.
    const next = (i: number): number => {
      let k = i + 1;
      while (k < t.length && t[k].type === 'text' && !t[k].content) k++;
      return k;
    };
    for (let i = 0; i < t.length; i++) {
      const k = next(i);
      if (t[i].type !== 'em_open' || t[k]?.type !== 'strong_open') continue;
      let depth = 0;
      let j = k;
      for (; j < t.length; j++) {
        if (t[j].type === 'strong_open') depth++;
        if (t[j].type === 'strong_close' && --depth === 0) break;
      }
      const l = next(j);
      if (t[l]?.type === 'em_close') {
        [t[i], t[k]] = [t[k], t[i]];
        [t[j], t[l]] = [t[l], t[j]];
      }
    }
  }
}

export const inlinePlugin = (md: MarkdownIt): void => {
  md.disable('strikethrough');
  md.inline.ruler.before('emphasis', 'underscore_text', underscoreRule);
  md.inline.ruler.before('emphasis', 'strike', strikeRule);
  md.inline.ruler2.after('balance_pairs', 'unpair_across_lines', unpairAcrossLines);
  md.core.ruler.push('strong_outside', strongOutside);
  keepCodeSpaces(md);
};
