// Block differences from CommonMark: lists nest at two spaces, any list may interrupt a paragraph, no
// reference definitions, a quote made only of ">" markers is plain text, and text right after
// empty quote lines is quoted.
import type { MarkdownIt, StateBlock } from 'markdown-it';

const MARKER = /^(?:[*+-]|\d{1,9}[.)])(?=[ \t]|$)/;

function lineText(state: StateBlock, line: number): string {
  return state.src.slice(state.bMarks[line] + state.tShift[line], state.eMarks[line]);
}

const isBlank = (state: StateBlock, line: number): boolean => state.bMarks[line] + state.tShift[line] >= state.eMarks[line];

/**
 * Before a list is parsed, re-indent (in markdown-it's column counts only) the lines it may span so
 * that two spaces of indentation nest, as in the original: a marker indented two or more columns
 * past an item's marker becomes that item's child, and indented text continues the deepest item
 * it is indented under. Each list region is re-indented once.
 */
function nestAtTwoSpaces(state: StateBlock, startLine: number, endLine: number): boolean {
  const env = state.env as { reindented?: Set<number> };
  const done = (env.reindented ??= new Set());
  if (done.has(startLine) || state.sCount[startLine] - state.blkIndent >= 4) return false;
  const first = MARKER.exec(lineText(state, startLine));
  if (!first) return false;
  const base = state.sCount[startLine];
  // Items open at this point: their source indent and the column their content starts at.
  const stack: { src: number; content: number }[] = [];
  const contentCol = (col: number, line: number, marker: string): number => {
    const after = lineText(state, line).slice(marker.length);
    const spaces = after.length - after.trimStart().length;
    return col + marker.length + (spaces >= 1 && spaces <= 4 ? spaces : 1);
  };
  let prevBlank = false;
  for (let l = startLine; l < endLine; l++) {
    if (isBlank(state, l)) {
      prevBlank = true;
      continue;
    }
    const src = state.sCount[l];
    const m = MARKER.exec(lineText(state, l));
    if (src < base || (src === base && !m && prevBlank)) break;
    done.add(l);
    prevBlank = false;
    if (m) {
      unifyBullet(state, l, m[0]);
      while (stack.length && stack[stack.length - 1].src > src - 2) stack.pop();
      const col = stack.length ? stack[stack.length - 1].content : src;
      state.sCount[l] = col;
      stack.push({ src, content: contentCol(col, l, m[0]) });
    } else if (src >= base + 2) {
      let owner = stack.length - 1;
      while (owner > 0 && stack[owner].src > src - 2) owner--;
      if (owner >= 0) state.sCount[l] = stack[owner].content + Math.max(0, src - stack[owner].src - 2);
    }
  }
  return false;
}

/** "-", "+" and "*" items form one list, as in the original: the marker is rewritten in place (same length). */
function unifyBullet(state: StateBlock, line: number, marker: string): void {
  const pos = state.bMarks[line] + state.tShift[line];
  if (!/^[+-]$/.test(marker) || /^([*+-])(\s*\1){2,}\s*$/.test(lineText(state, line))) return;
  state.src = state.src.slice(0, pos) + '*' + state.src.slice(pos + 1);
}

export const blocksPlugin = (md: MarkdownIt): void => {
  md.disable('reference');
  md.block.ruler.before('list', 'nest_at_two_spaces', nestAtTwoSpaces, { alt: ['paragraph', 'reference', 'blockquote'] });

  // Any list may interrupt a paragraph (CommonMark only lets bullet and "1." lists do so).
  const list = ruleFn(md, 'list');
  md.block.ruler.at('list', (state, start, end, silent) => {
    if (!silent || state.parentType !== 'paragraph') return list(state, start, end, silent);
    state.parentType = 'list' as typeof state.parentType;
    try {
      return list(state, start, end, silent);
    } finally {
      state.parentType = 'paragraph' as typeof state.parentType;
    }
  }, { alt: ['paragraph', 'reference', 'blockquote'] });

  // ">" with nothing after it, on every line to the end of the block, is text, not an empty quote;
  // such lines followed by text quote that text (see quoteAfterEmptyMarkers).
  const blockquote = ruleFn(md, 'blockquote');
  md.block.ruler.at('blockquote', (state, start, end, silent) => {
    if (state.sCount[start] - state.blkIndent >= 4) return false;
    let l = start;
    while (l < end && !isBlank(state, l) && EMPTY_QUOTE.test(lineText(state, l))) l++;
    if (l === start) return blockquote(state, start, end, silent);
    if (l === end || isBlank(state, l)) return false;
    if (lineText(state, l).startsWith('>')) return blockquote(state, start, end, silent);
    return quoteAfterEmptyMarkers(state, start, l, end, silent);
  }, { alt: ['paragraph', 'reference', 'blockquote', 'list'] });
};

const EMPTY_QUOTE = /^>\s*$/;

/**
 * Empty quote lines followed by unmarked text: the original takes the rest of the block (up to a
 * blank line) into the quote, where CommonMark would close an empty quote and start a paragraph.
 */
function quoteAfterEmptyMarkers(state: StateBlock, start: number, textLine: number, end: number, silent: boolean): boolean {
  if (silent) return true;
  let last = textLine;
  while (last < end && !isBlank(state, last)) last++;
  const oldParent = state.parentType;
  const oldLineMax = state.lineMax;
  const open = state.push('blockquote_open', 'blockquote', 1);
  open.markup = '>';
  open.map = [start, last];
  state.parentType = 'blockquote';
  state.lineMax = last;
  state.md.block.tokenize(state, textLine, last);
  state.push('blockquote_close', 'blockquote', -1).markup = '>';
  state.parentType = oldParent;
  state.lineMax = oldLineMax;
  state.line = last;
  return true;
}

type BlockRule = (state: StateBlock, startLine: number, endLine: number, silent: boolean) => boolean;

/** The function markdown-it registered under a name, to wrap it. */
function ruleFn(md: MarkdownIt, name: string): BlockRule {
  const rules = (md.block.ruler as unknown as { __rules__: { name: string; fn: BlockRule }[] }).__rules__;
  const found = rules.find((r) => r.name === name);
  if (!found) throw new Error(`markdown-it has no block rule ${name}`);
  return found.fn;
}
