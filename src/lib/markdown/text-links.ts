// Shared core-rule step: split text tokens outside links into text and link tokens at given matches.
import type { StateCore, Token } from 'markdown-it';

export interface TextLinkMatch {
  start: number;
  end: number;
  text: string;
  href: string;
}

export function textToken(state: StateCore, content: string): Token {
  const t = new state.Token('text', '', 0);
  t.content = content;
  return t;
}

/** Replaces each text token (not inside a link) by text and links at `find`'s matches. */
export function linkTextMatches(state: StateCore, find: (text: string) => TextLinkMatch[], markup: string): void {
  for (const block of state.tokens) {
    if (block.type !== 'inline' || !block.children) continue;
    const out: Token[] = [];
    let linkDepth = 0;
    for (const tok of block.children) {
      if (tok.type === 'link_open') linkDepth++;
      if (tok.type === 'link_close') linkDepth--;
      const found = tok.type === 'text' && linkDepth === 0 ? find(tok.content) : [];
      if (!found.length) {
        out.push(tok);
        continue;
      }
      let pos = 0;
      for (const m of found) {
        if (m.start > pos) out.push(textToken(state, tok.content.slice(pos, m.start)));
        const open = new state.Token('link_open', 'a', 1);
        open.attrs = [['href', m.href]];
        open.markup = markup;
        out.push(open, textToken(state, m.text), new state.Token('link_close', 'a', -1));
        pos = m.end;
      }
      if (pos < tok.content.length) out.push(textToken(state, tok.content.slice(pos)));
    }
    block.children = out;
  }
}
