// Whitespace as the original writes it: paragraph lines keep their indentation and trailing spaces, a tight item's nested list follows its text directly.
import type { MarkdownIt, StateBlock, StateInline, Token } from 'markdown-it';

type BlockRule = (state: StateBlock, startLine: number, endLine: number, silent: boolean) => boolean;

function blockRule(md: MarkdownIt, name: string): BlockRule {
  const found = (md.block.ruler as unknown as { __rules__: { name: string; fn: BlockRule }[] }).__rules__.find((r) => r.name === name);
  if (!found) throw new Error(`markdown-it has no block rule ${name}`);
  return found.fn;
}

/**
 * The original (Python-Markdown) strips only the start of a paragraph: its last line keeps trailing
 * spaces, and the lines after the first keep their indentation. In a list item, the paragraph on
 * the marker's line takes the following lines as written (its list parser appends them raw); other
 * paragraphs of an item lose the item's indentation, as markdown-it already does.
 */
function paragraphContent(state: StateBlock, start: number, end: number, markerLine: boolean): string {
  const first = state.src.slice(state.bMarks[start] + state.tShift[start], state.eMarks[start]);
  if (end - start === 1) return first.trimStart();
  return (first + '\n' + state.getLines(start + 1, end, markerLine ? 0 : state.blkIndent, false)).trimStart();
}

const isSpaceCode = (c: number): boolean => c === 0x20 || c === 0x09;

/** markdown-it's newline rule without skipping the next line's leading spaces. */
function newline(state: StateInline, silent: boolean): boolean {
  if (state.src.charCodeAt(state.pos) !== 0x0a) return false;
  if (!silent) {
    const p = state.pending;
    if (p.endsWith('  ')) {
      state.pending = p.replace(/ +$/, '');
      state.push('hardbreak', 'br', 0);
    } else {
      if (p.endsWith(' ')) state.pending = p.slice(0, -1);
      state.push('softbreak', 'br', 0);
    }
  }
  state.pos++;
  return true;
}

export const whitespacePlugin = (md: MarkdownIt): void => {
  const paragraph = blockRule(md, 'paragraph');
  md.block.ruler.at('paragraph', (state, start, end, silent) => {
    const inList = (state.parentType as string) === 'list';
    // On an item's first line, the marker sits between the line's start and its content.
    const markerLine = inList && /\S/.test(state.src.slice(state.bMarks[start], state.bMarks[start] + state.tShift[start]));
    const before = state.tokens.length;
    if (!paragraph(state, start, end, silent)) return false;
    const inline = state.tokens[before + 1] as Token | undefined;
    if (inline?.type !== 'inline' || !inline.map) return true;
    const [first, last] = inline.map;
    // One line without trailing spaces (most chat messages) is already what the original keeps.
    if (last - first === 1 && !isSpaceCode(state.src.charCodeAt(state.eMarks[first] - 1))) return true;
    inline.content = paragraphContent(state, first, last, markerLine);
    return true;
  });
  md.inline.ruler.at('newline', newline);

  // A tight item's nested list follows the item's text directly (`<li>a<ul>`), as in the original.
  for (const name of ['bullet_list_open', 'ordered_list_open']) {
    md.renderer.rules[name] = (tokens, idx, options, _env, self) => {
      const html = self.renderToken(tokens, idx, options);
      const prev = tokens[idx - 1];
      return prev?.type === 'paragraph_close' && prev.hidden ? html.replace(/^\n/, '') : html;
    };
  }
};
