// TeX math through KaTeX: inline $$…$$ (one line, not money like $5 or $$$) and the renderer used by math fences.
import { createRequire } from 'node:module';
import type { MarkdownIt, StateInline, Token } from 'markdown-it';
import { escapeHtml } from './code.js';

// KaTeX is large and most messages have no math: load it (synchronously, rendering is sync) on first use.
const require = createRequire(import.meta.url);
let katexModule: typeof import('katex').default | null = null;
const katex = () => (katexModule ??= require('katex') as typeof import('katex').default);

/** KaTeX's HTML for the TeX, or null when it does not parse. Untrusted commands (\href, \url…) stay disabled. */
export function renderTex(tex: string, display: boolean): string | null {
  try {
    return katex().renderToString(tex, { displayMode: display, throwOnError: true, output: 'htmlAndMathml', trust: false, strict: 'ignore', maxSize: 100, maxExpand: 1000 });
  } catch {
    return null;
  }
}

// $$, a body that does not start with _ or $ and holds no newline or unescaped $, then $$ not followed by $.
const INLINE = /^\$\$([^\n_$](?:\\\$|[^\n$])*)\$\$(?!\$)/;

function mathRule(state: StateInline, silent: boolean): boolean {
  if (state.src.charCodeAt(state.pos) !== 0x24 /* $ */ || state.src.charCodeAt(state.pos - 1) === 0x24) return false;
  const m = INLINE.exec(state.src.slice(state.pos, state.posMax));
  if (!m) return false;
  if (!silent) state.push('math_inline', '', 0).content = m[1];
  state.pos += m[0].length;
  return true;
}

export const mathPlugin = (md: MarkdownIt): void => {
  md.inline.ruler.before('text', 'math_inline', mathRule);
  md.renderer.rules.math_inline = (tokens: Token[], idx: number) => {
    const tex = tokens[idx].content;
    return renderTex(tex, false) ?? `<span class="tex-error">${escapeHtml(`$$${tex}$$`)}</span>`;
  };
};
