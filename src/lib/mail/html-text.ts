// The plain-text part of an email from its rendered HTML: links as text and URL, quotes with "> ", code indented, math as its TeX.
import type { FormatCallback, HtmlToTextOptions } from 'html-to-text';

interface Node {
  type?: string;
  name?: string;
  data?: string;
  attribs?: Record<string, string>;
  children?: Node[];
}

/** The text of the first element named `name` under a node (KaTeX keeps the TeX source in <annotation>). */
function findText(node: Node, name: string): string | null {
  if (node.name === name) return textOf(node);
  for (const c of node.children ?? []) {
    const found = findText(c, name);
    if (found !== null) return found;
  }
  return null;
}

const textOf = (node: Node): string => (node.type === 'text' ? (node.data ?? '') : (node.children ?? []).map(textOf).join(''));

/** Math reads as the TeX the author wrote, between $$ as they typed it. */
const katex: FormatCallback = (elem, _walk, builder) => {
  const tex = findText(elem as unknown as Node, 'annotation');
  builder.addInline(tex === null ? '' : `$$${tex}$$`);
};

/** A code block as its text, indented four spaces (Markdown's code block), set apart by blank lines. */
const codeBlock: FormatCallback = (elem, _walk, builder) => {
  const code = textOf(elem as unknown as Node).replace(/\n$/, '');
  builder.openBlock({ leadingLineBreaks: 2 });
  builder.addLiteral(code.split('\n').map((l) => (l ? `    ${l}` : '')).join('\n'));
  builder.closeBlock({ trailingLineBreaks: 2 });
};

const OPTIONS: HtmlToTextOptions = {
  wordwrap: false,
  formatters: { katex, codeBlock },
  selectors: [
    // "text [URL]", or only the URL when the text is the URL; fragment-only links carry no address worth reading.
    { selector: 'a', options: { hideLinkHrefIfSameAsText: true, ignoreHref: false, noAnchorUrl: true } },
    { selector: 'img', format: 'skip' },
    { selector: 'span.katex', format: 'katex' },
    { selector: 'div.codehilite', format: 'codeBlock' },
    { selector: 'pre', format: 'codeBlock' },
    { selector: 'blockquote', options: { trimEmptyLines: true } },
    { selector: 'h1', options: { uppercase: false } },
    { selector: 'h2', options: { uppercase: false } },
    { selector: 'h3', options: { uppercase: false } },
    { selector: 'h4', options: { uppercase: false } },
    { selector: 'h5', options: { uppercase: false } },
    { selector: 'h6', options: { uppercase: false } },
    { selector: 'table', format: 'dataTable', options: { uppercaseHeaderCells: false } },
  ],
};

// Loaded on the first email (2.5 MB of a server's memory otherwise, for servers that send none).
let converter: Promise<(html: string) => string> | null = null;

/** Readable plain text of message (or email) HTML. */
export async function htmlToText(html: string): Promise<string> {
  converter ??= import('html-to-text').then((m) => m.compile(OPTIONS));
  return (await converter)(html).trim();
}
