// Fenced blocks as the original reads them: code, quote, spoiler and math fences, nestable, closed by the exact fence or the end.
import type { MarkdownIt, StateBlock, Token } from 'markdown-it';
import { codeBlockHtml, escapeHtml } from './code.js';
import { renderTex } from './math.js';
import type { RenderContext } from './context.js';

// ``` or ~~~ (3+), an optional language ({.lang}, .lang or lang), and an optional header (spoilers)
// that contains no fence characters; anything else on the line makes it ordinary text.
const OPEN = /^(`{3,}|~{3,})[ ]*(?:\{?\.?([a-zA-Z0-9_+\-./#]*)[ ]*([^ ~`][^~`]*)?\}?)?$/;

type Kind = 'code' | 'quote' | 'spoiler' | 'math';

function kindOf(lang: string): Kind {
  const l = lang.toLowerCase();
  if (l === 'quote' || l === 'quoted') return 'quote';
  if (l === 'spoiler') return 'spoiler';
  if (l === 'math') return 'math';
  return 'code';
}

function lineText(state: StateBlock, line: number): string {
  return state.src.slice(state.bMarks[line] + state.tShift[line], state.eMarks[line]);
}

/** Whether a line leaves the enclosing container (a list item's content, say). */
function leavesContainer(state: StateBlock, line: number): boolean {
  return state.bMarks[line] + state.tShift[line] < state.eMarks[line] && state.sCount[line] < state.blkIndent;
}

/**
 * The line that closes a fence opened just before `start`, or -1 when it runs to the end.
 * Inside quote and spoiler fences, nested fences open and close in turn; inside code and math
 * fences only the exact closing fence counts.
 */
function findClose(state: StateBlock, start: number, end: number, fence: string, raw: boolean): number {
  const stack: { fence: string; raw: boolean }[] = [{ fence, raw }];
  for (let l = start; l < end; l++) {
    if (leavesContainer(state, l)) return -1;
    const text = lineText(state, l);
    const top = stack[stack.length - 1];
    if (text.trimEnd() === top.fence) {
      stack.pop();
      if (!stack.length) return l;
      continue;
    }
    if (top.raw) continue;
    const m = OPEN.exec(text);
    if (m) stack.push({ fence: m[1], raw: ['code', 'math'].includes(kindOf(m[2] ?? '')) });
  }
  return -1;
}

function lastContentLine(state: StateBlock, start: number, end: number): number {
  for (let l = start; l < end; l++) if (leavesContainer(state, l)) return l;
  return end;
}

function fenceRule(state: StateBlock, startLine: number, endLine: number, silent: boolean): boolean {
  if (state.sCount[startLine] - state.blkIndent >= 4) return false;
  const m = OPEN.exec(lineText(state, startLine));
  if (!m) return false;
  if (silent) return true;
  const fence = m[1];
  const lang = m[2] ?? '';
  const header = (m[3] ?? '').trim();
  const kind = kindOf(lang);
  const raw = kind === 'code' || kind === 'math';
  const close = findClose(state, startLine + 1, endLine, fence, raw);
  const contentEnd = close >= 0 ? close : lastContentLine(state, startLine + 1, endLine);
  const next = close >= 0 ? close + 1 : contentEnd;

  if (raw) {
    const tok = state.push(kind === 'math' ? 'zmath' : 'zcode', kind === 'math' ? 'p' : 'code', 0);
    tok.info = kind === 'math' ? '' : lang;
    tok.content = state.getLines(startLine + 1, contentEnd, state.sCount[startLine], true);
    tok.map = [startLine, next];
    state.line = next;
    return true;
  }

  const oldParent = state.parentType;
  const oldLineMax = state.lineMax;
  state.parentType = 'blockquote' as typeof state.parentType;
  state.lineMax = contentEnd;
  if (kind === 'quote') {
    state.push('blockquote_open', 'blockquote', 1).map = [startLine, next];
    state.md.block.tokenize(state, startLine + 1, contentEnd);
    state.push('blockquote_close', 'blockquote', -1);
  } else {
    state.push('spoiler_open', 'div', 1).map = [startLine, next];
    // The header is Markdown blocks of its own in the original (a heading, a list…), not just a paragraph.
    if (header) state.md.block.parse(header, state.md, state.env, state.tokens);
    state.push('spoiler_content_open', 'div', 1);
    state.md.block.tokenize(state, startLine + 1, contentEnd);
    state.push('spoiler_close', 'div', -1);
  }
  state.parentType = oldParent;
  state.lineMax = oldLineMax;
  state.line = next;
  return true;
}

interface Env {
  ctx: RenderContext;
}

export const fencePlugin = (md: MarkdownIt): void => {
  md.block.ruler.at('fence', fenceRule, { alt: ['paragraph', 'reference', 'blockquote', 'list'] });
  const r = md.renderer.rules;
  r.zcode = (tokens: Token[], idx: number, _o: unknown, env: unknown) => codeBlockHtml(tokens[idx].content, tokens[idx].info, (env as Env).ctx.defaultCodeBlockLanguage);
  r.code_block = (tokens: Token[], idx: number) => codeBlockHtml(tokens[idx].content, '', '');
  // Each blank-line-separated part of a math block is its own display formula, all in one paragraph, as in the original.
  r.zmath = (tokens: Token[], idx: number) => {
    const parts = tokens[idx].content.replace(/\n$/, '').split('\n\n');
    return `<p>${parts.map((tex) => renderTex(tex, true) ?? `<span class="tex-error">${escapeHtml(tex)}</span>`).join('\n\n')}</p>\n`;
  };
  r.spoiler_open = () => '<div class="spoiler-block"><div class="spoiler-header">\n';
  r.spoiler_content_open = () => '</div><div class="spoiler-content" aria-hidden="true">\n';
  r.spoiler_close = () => '</div></div>\n';
};
