// Emoji: :name: (custom, built-in extra, Unicode), Unicode emoji characters in text, and emoticons when the sender asks.
import type { MarkdownIt, StateCore, StateInline, Token } from 'markdown-it';
import { unicodeCodeOfName, unicodeNameOfCode } from '../emoji/unicode.js';
import { SERVICE_EXTRA_EMOJI } from '../emoji/resolve.js';
import type { RenderContext } from './context.js';
import { textToken as text } from './text-links.js';

interface EmojiMeta {
  name: string;
  /** Unicode code points (dash-separated hex, no variation selectors), or null for an image emoji. */
  code: string | null;
  url?: string;
}

export function emojiByName(ctx: RenderContext, name: string): EmojiMeta | null {
  const custom = ctx.realmEmoji.get(name);
  if (custom) return { name, code: null, url: custom.url };
  if (SERVICE_EXTRA_EMOJI.has(name)) return { name, code: null, url: `/static/generated/emoji/images/emoji/unicode/${name}.png` };
  const code = unicodeCodeOfName(name);
  return code ? { name, code } : null;
}

function emojiRule(state: StateInline, silent: boolean): boolean {
  if (state.src.charCodeAt(state.pos) !== 0x3a /* : */) return false;
  const m = /^:([\w+-]+):/.exec(state.src.slice(state.pos, state.posMax));
  if (!m) return false;
  const found = emojiByName((state.env as { ctx: RenderContext }).ctx, m[1]);
  if (!found) return false;
  if (!silent) state.push('emoji', '', 0).meta = found as unknown as Record<string, unknown>;
  state.pos += m[0].length;
  return true;
}

/** Emoticon → the name of the emoji it stands for (the name shows, as if the sender had typed it). */
const EMOTICONS: Record<string, string> = {
  ':)': 'smile', '(:': 'smile', ':(': 'frown', '<3': 'heart', ':|': 'neutral', ':/': 'confused',
  ';)': 'wink', ':D': 'grinning', ':o': 'open_mouth', ':O': 'open_mouth', ':p': 'stuck_out_tongue', ':P': 'stuck_out_tongue',
};
const quote = (s: string): string => s.replace(/[()|/]/g, '\\$&');
// An emoticon stands between the text's ends, spaces and these symbols (the original's set).
const EDGE = `[,.;?!()\\[\\] "'\\n\\t]`;
const EMOTICON_RE = new RegExp(`(?<=^|${EDGE})(${Object.keys(EMOTICONS).map(quote).join('|')})(?=$|${EDGE})`, 'g');

// A keycap, a flag (two regional indicators or a tag sequence), or pictographs joined by ZWJ, each
// with an optional variation selector or skin tone. A lone pictograph without emoji presentation
// (©, ↔ …) needs FE0F. A match the table does not know (a newer sequence) stays text, whole.
const UNICODE_RE = /[#*0-9]\uFE0F?\u20E3|\p{Regional_Indicator}{2}|\u{1F3F4}[\u{E0020}-\u{E007E}]+\u{E007F}|\p{Extended_Pictographic}[\uFE0F\p{Emoji_Modifier}]?(?:\u200D\p{Extended_Pictographic}[\uFE0F\p{Emoji_Modifier}]?)*/gu;

/** The table's code of a run of emoji text: hex code points, variation selectors dropped. */
function codeOfText(text: string): string {
  return [...text]
    .filter((c) => c !== '\uFE0F')
    .map((c) => c.codePointAt(0)!.toString(16).padStart(4, '0'))
    .join('-');
}

function unicodeEmoji(text: string): EmojiMeta | null {
  const single = [...text].length === 1;
  if (single && !/\p{Emoji_Presentation}/u.test(text)) return null;
  const code = codeOfText(text);
  const name = unicodeNameOfCode(code);
  return name ? { name, code } : null;
}

function emoticonEmoji(emoticon: string): EmojiMeta | null {
  const name = EMOTICONS[emoticon];
  const code = unicodeCodeOfName(name);
  return code ? { name, code } : null;
}

/** Core rule: Unicode emoji (and emoticons, when enabled) in text tokens become emoji tokens. */
function textEmoji(state: StateCore): void {
  const ctx = (state.env as { ctx: RenderContext }).ctx;
  for (const block of state.tokens) {
    if (block.type !== 'inline' || !block.children) continue;
    const out: Token[] = [];
    for (const tok of block.children) {
      if (tok.type !== 'text') {
        out.push(tok);
        continue;
      }
      const found: { start: number; end: number; meta: EmojiMeta }[] = [];
      for (const m of tok.content.matchAll(UNICODE_RE)) {
        const meta = unicodeEmoji(m[0]);
        if (meta) found.push({ start: m.index, end: m.index + m[0].length, meta });
      }
      if (ctx.translateEmoticons) {
        for (const m of tok.content.matchAll(EMOTICON_RE)) {
          const meta = emoticonEmoji(m[0]);
          if (meta) found.push({ start: m.index, end: m.index + m[0].length, meta });
        }
      }
      if (!found.length) {
        out.push(tok);
        continue;
      }
      found.sort((a, b) => a.start - b.start);
      let pos = 0;
      for (const f of found) {
        if (f.start < pos) continue;
        if (f.start > pos) out.push(text(state, tok.content.slice(pos, f.start)));
        const e = new state.Token('emoji', '', 0);
        e.meta = f.meta as unknown as Record<string, unknown>;
        out.push(e);
        pos = f.end;
      }
      if (pos < tok.content.length) out.push(text(state, tok.content.slice(pos)));
    }
    block.children = out;
  }
}

function emojiHtml(e: EmojiMeta, esc: (s: string) => string): string {
  const title = esc(e.name.replace(/_/g, ' '));
  if (e.code === null) return `<img alt=":${esc(e.name)}:" class="emoji" src="${esc(e.url!)}" title="${title}">`;
  return `<span aria-label="${title}" class="emoji emoji-${esc(e.code)}" role="img" title="${title}">:${esc(e.name)}:</span>`;
}

export const emojiPlugin = (md: MarkdownIt): void => {
  md.inline.ruler.after('linkify', 'emoji', emojiRule);
  md.core.ruler.push('text_emoji', textEmoji);
  md.renderer.rules.emoji = (tokens: Token[], idx: number) => emojiHtml(tokens[idx].meta as unknown as EmojiMeta, md.utils.escapeHtml);
};
