// Slack's mrkdwn → the message Markdown: mentions, channel links, wildcards, links, bold/italic/strike, code.

export interface MrkdwnNames {
  /** Slack user ID → the imported person's full name. */
  user(id: string): string | undefined;
  /** Slack channel ID → the imported channel's name. */
  channel(id: string): string | undefined;
}

const WILDCARDS: Record<string, string> = { channel: '@**channel**', everyone: '@**everyone**', here: '@**all**' };

/** Decodes the three entities Slack escapes in message text. */
function unescape(s: string): string {
  return s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}

/** One `<…>` reference: a mention, a channel link, a wildcard or a link. */
function convertReference(inner: string, names: MrkdwnNames): string {
  const bar = inner.indexOf('|');
  const target = bar >= 0 ? inner.slice(0, bar) : inner;
  const label = bar >= 0 ? inner.slice(bar + 1) : '';
  if (target.startsWith('@')) {
    const name = names.user(target.slice(1));
    return name ? `@**${name}**` : `@${label || target.slice(1)}`;
  }
  if (target.startsWith('#')) {
    const name = names.channel(target.slice(1)) ?? label;
    return name ? `#**${name}**` : `#${target.slice(1)}`;
  }
  if (target.startsWith('!')) {
    const word = target.slice(1).split('^')[0];
    if (WILDCARDS[word]) return WILDCARDS[word];
    // <!subteam^ID|@group> and <!date^…|fallback>: their fallback text.
    return label || `@${word}`;
  }
  const url = unescape(target);
  if (!label || unescape(label) === url || unescape(label) === url.replace(/^mailto:/, '')) return url.startsWith('mailto:') ? url.slice(7) : url;
  return `[${unescape(label).replace(/[[\]]/g, '')}](${url})`;
}

/**
 * Emphasis markers at word edges: Slack's *bold* is Markdown's **bold**, _italic_ is *italic*,
 * ~strike~ is ~~strike~~. Applied only outside code (the caller splits code out).
 */
function convertEmphasis(text: string): string {
  const edge = (marker: string, replacement: string) => (s: string) =>
    s.replace(new RegExp(`(^|[\\s(>"'~*_\u0001])\\${marker}(?=\\S)([^\\${marker}\\n]*?\\S)\\${marker}(?=$|[\\s).,;:!?"'~*_\u0001])`, 'g'), `$1${replacement}$2${replacement}`);
  // Bold goes to a placeholder first, so the italic pass's output (*) is not read as Slack bold.
  let out = edge('*', '\u0001')(text);
  out = edge('_', '*')(out);
  out = edge('~', '~~')(out);
  return out.replace(/\u0001/g, '**');
}

/** Characters that start anything the conversion changes: references, entities, emphasis, code. */
const MARKUP = /[<>&*_~`]/;

/** Converts one message's text. Code blocks and code spans keep their content as written. */
export function mrkdwnToMarkdown(text: string, names: MrkdwnNames): string {
  // Most lines hold no markup at all: nothing to convert (a tenth of an import's CPU went here).
  if (!MARKUP.test(text)) return text.replace(/\n+$/, '');
  const parts: string[] = [];
  // ```…``` blocks (possibly on one line) and `…` spans are kept verbatim, apart from entities.
  const re = /```([\s\S]*?)```|`([^`\n]+)`/g;
  let last = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    parts.push(convertText(text.slice(last, m.index), names));
    if (m[1] !== undefined) {
      const body = unescape(m[1]).replace(/^\n+|\n+$/g, '');
      const before = parts.length && !/(^|\n)$/.test(parts[parts.length - 1]) ? '\n' : '';
      parts.push(`${before}\`\`\`\n${body}\n\`\`\`\n`);
    } else parts.push('`' + unescape(m[2]) + '`');
    last = m.index + m[0].length;
  }
  parts.push(convertText(text.slice(last), names));
  return parts.join('').replace(/\n+$/, '');
}

function convertText(text: string, names: MrkdwnNames): string {
  // References first (their labels may hold * or _), kept out of the emphasis pass as placeholders.
  const refs: string[] = [];
  const withRefs = text.replace(/<([^<>\n]+)>/g, (_, inner: string) => {
    refs.push(convertReference(inner, names));
    return `\u0002${refs.length - 1}\u0003`;
  });
  const emphasized = convertEmphasis(unescape(withRefs));
  return emphasized.replace(/\u0002(\d+)\u0003/g, (_, i: string) => refs[Number(i)]);
}
