// An incoming mail's body as message Markdown: the text part, else the HTML converted; quoted history cut.
import TurndownService from 'turndown';

/** The message length limit of the API (longer bodies are cut with a note). */
export const MAX_BODY_CHARS = 10_000;

let turndown: TurndownService | null = null;

export function htmlToMarkdown(html: string): string {
  if (!turndown) {
    turndown = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-' }).remove(['style', 'script', 'head', 'title']);
    // Images embedded in the mail arrive as attachments (uploaded and linked); their references go.
    turndown.addRule('embedded-images', { filter: (node) => node.nodeName === 'IMG' && /^(cid|data):/i.test(node.getAttribute('src') ?? ''), replacement: () => '' });
  }
  return turndown.turndown(html);
}

/**
 * Drops what mail programs add under a reply: the quoted earlier message ("On … wrote:" and its
 * "> " lines) and a signature after the standard "-- " line. Used for replies by email only.
 */
export function stripQuotedReply(text: string): string {
  const lines = text.split(/\r?\n/);
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (line === '-- ' || /^-{2,}\s*Original Message\s*-{2,}$/i.test(line.trim())) break;
    // "On <date>, <name> wrote:" may be wrapped over two lines by the sender's program.
    const joined = i + 1 < lines.length ? `${line} ${lines[i + 1]}` : line;
    if (/^On .{4,200} wrote:\s*$/.test(line.trim()) || (/^On /.test(line.trim()) && /wrote:\s*$/.test(joined.trim()) && (lines[i + 2] ?? '').startsWith('>'))) break;
    out.push(line);
  }
  // A trailing block of quoted lines (top posting cut above leaves none; bottom quoting does).
  while (out.length && (out[out.length - 1].startsWith('>') || !out[out.length - 1].trim())) out.pop();
  return out.join('\n');
}

export interface InboundParts {
  text?: string;
  html?: string | false;
}

/** The Markdown of a mail's body; the text part wins (mail programs write it for exactly this reader). */
export function inboundMarkdown(parts: InboundParts, isReply: boolean): string {
  let body = parts.text?.trim() ? parts.text : parts.html ? htmlToMarkdown(parts.html) : '';
  if (isReply) body = stripQuotedReply(body);
  body = body.replace(/\r\n/g, '\n').replace(/\n{3,}/g, '\n\n').trim();
  if ([...body].length > MAX_BODY_CHARS) body = `${[...body].slice(0, MAX_BODY_CHARS - 40).join('')}\n\n[message truncated]`;
  return body;
}
