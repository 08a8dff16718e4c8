// Links: which URL schemes may be linked, and tidying link targets and texts after parsing.
import type { MarkdownIt, StateCore, Token } from 'markdown-it';
import type { RenderContext } from './context.js';

const SAFE_SCHEMES = /^(https?|ftp|mailto|tel|sms|file|bitcoin|irc|ircs|xmpp|webcal|geo|magnet):/i;
const HAS_SCHEME = /^[a-z][a-z0-9+.-]*:/i;

/** A link target is safe when it has no scheme (relative) or one of the allowed schemes. */
export function safeUrl(url: string): boolean {
  // Control characters and whitespace inside a scheme ("java\tscript:") are stripped by browsers.
  const squeezed = url.replace(/[\u0000-\u0020\u007f]/g, '');
  if (HAS_SCHEME.test(squeezed)) return SAFE_SCHEMES.test(squeezed);
  return !/^[^/?#]*:/.test(squeezed);
}

export function configureLinks(md: MarkdownIt): void {
  md.validateLink = safeUrl;
}

/** Whether the href points into the organization; such links become fragment links (#narrow/…). */
function localFragment(href: string, ctx: RenderContext): string | null {
  if (!ctx.realmUrl || !href.startsWith(ctx.realmUrl + '/#')) return null;
  return href.slice(ctx.realmUrl.length + 1);
}

/**
 * Core rule after linking: a scheme-less target like "zulip.com" gets "http://", links into the
 * organization become fragments, and a link without visible text shows its URL.
 */
export function tidyLinks(state: StateCore): void {
  const env = state.env as { ctx: RenderContext; hasLink?: boolean };
  for (const block of state.tokens) {
    if (block.type !== 'inline' || !block.children) continue;
    const t = block.children;
    for (let i = 0; i < t.length; i++) {
      if (t[i].type !== 'link_open') continue;
      env.hasLink = true;
      let href = String(t[i].attrGet('href') ?? '');
      if (href && !HAS_SCHEME.test(href) && !/^[/?#.]/.test(href)) href = 'http://' + href;
      const original = href;
      href = localFragment(href, env.ctx) ?? href;
      t[i].attrSet('href', href);
      const close = t.findIndex((x, j) => j > i && x.type === 'link_close' && x.level === t[i].level);
      const inner = t.slice(i + 1, close);
      if (close > i && inner.every((x) => x.type === 'text' && !x.content.trim())) {
        const text = new state.Token('text', '', 0);
        text.content = original;
        t.splice(i + 1, close - i - 1, text);
      }
    }
  }
}

/** Inline tokens' plain text, for previews that compare a link's text to its URL. */
export function tokensText(tokens: Token[]): string {
  return tokens.map((x) => (x.type === 'text' || x.type === 'code_inline' ? x.content : '')).join('');
}
