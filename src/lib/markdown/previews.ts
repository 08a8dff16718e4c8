// Inline previews of image and video links, placed after the paragraph that holds the link (not inside quotes).
import type { StateCore, Token } from 'markdown-it';
import type { RenderContext } from './context.js';
import { escapeHtml } from './code.js';
import { proxyUrl } from '../image-proxy/sign.js';

const IMAGE = /\.(png|jpe?g|gif|webp|bmp|tiff?|avif)$/i;
const VIDEO = /\.(mp4|webm|mov|m4v|ogv)$/i;
/** Beyond this many previewable links a message gets none, as in the original. */
export const PREVIEW_LIMIT = 24;

function pathOf(url: string): string | null {
  try {
    const u = new URL(url, 'http://relative.invalid');
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.pathname : null;
  } catch {
    return null;
  }
}

/** Python's quote(s, safe=''): everything but [A-Za-z0-9_.~-] percent-encoded. */
function quoteAll(s: string): string {
  return encodeURIComponent(s).replace(/[!'()*]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase());
}

/** An external video through the image proxy, as the original writes it; a same-site path as it is. */
function camoUrl(url: string, ctx: RenderContext): string {
  return ctx.camo && /^https?:\/\//i.test(url) ? proxyUrl(ctx.camo, url) : url;
}

function previewHtml(href: string, title: string | null, ctx: RenderContext): string {
  const t = title ? ` title="${escapeHtml(title)}"` : '';
  const a = `<a href="${escapeHtml(href)}"${t}>`;
  if (VIDEO.test(pathOf(href) ?? '')) {
    return `<div class="message_inline_image message_inline_video">${a}<video data-video-original-url="${escapeHtml(href)}" preload="metadata" src="${escapeHtml(camoUrl(href, ctx))}"></video></a></div>`;
  }
  const q = quoteAll(href.replace(/^\//, ''));
  return `<div class="message_inline_image">${a}<img data-src-fullsize="/thumbnail?url=${q}&amp;size=full" src="/thumbnail?url=${q}&amp;size=thumbnail"></a></div>`;
}

interface Found {
  href: string;
  title: string | null;
}

/** The previewable links of one paragraph, and whether the paragraph is nothing but one such bare link. */
function scan(children: Token[]): { links: Found[]; onlyLink: boolean } {
  const links: Found[] = [];
  let others = 0;
  for (let i = 0; i < children.length; i++) {
    const t = children[i];
    if (t.type !== 'link_open' || t.markup === 'linkifier') {
      if (!(t.type === 'text' && !t.content.trim()) && t.type !== 'softbreak') others++;
      continue;
    }
    const close = children.findIndex((x, j) => j > i && x.type === 'link_close');
    const href = String(t.attrGet('href') ?? '');
    const path = pathOf(href);
    const text = children
      .slice(i + 1, close)
      .map((x) => x.content)
      .join('');
    if (path && (IMAGE.test(path) || VIDEO.test(path))) links.push({ href, title: text === href || t.markup === 'linkify' ? null : text });
    else others++;
    i = close;
  }
  const onlyLink = links.length === 1 && others === 0 && links[0].title === null;
  return { links, onlyLink };
}

/** Core rule: inserts preview blocks after paragraphs; a paragraph holding only the link is replaced. */
export function inlinePreviews(state: StateCore): void {
  const env = state.env as { ctx: RenderContext; hasImage?: boolean };
  if (!env.ctx.inlineImagePreview) return;
  const plan: { after: number; remove: boolean; links: Found[] }[] = [];
  const seen = new Set<string>();
  let total = 0;
  let quoteDepth = 0;
  const tokens = state.tokens;
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    if (t.type === 'blockquote_open') quoteDepth++;
    if (t.type === 'blockquote_close') quoteDepth--;
    if (t.type !== 'inline' || !t.children || quoteDepth > 0 || tokens[i - 1]?.type !== 'paragraph_open') continue;
    const { links, onlyLink } = scan(t.children);
    total += links.length;
    const fresh = links.filter((l) => !seen.has(l.href) && seen.add(l.href));
    if (fresh.length) plan.push({ after: i + 1, remove: onlyLink && fresh.length === 1, links: fresh });
  }
  if (!plan.length || total > PREVIEW_LIMIT) return;
  env.hasImage = true;
  for (const p of plan.reverse()) {
    const block = new state.Token('html_block', '', 0);
    // In a tight list item (hidden paragraph) the preview ends the item's text, with no line break after it.
    block.content = p.links.map((l) => previewHtml(l.href, l.title, env.ctx)).join('') + (tokens[p.after].hidden ? '' : '\n');
    tokens.splice(p.after + 1, 0, block);
    if (p.remove && !tokens[p.after].hidden) tokens.splice(p.after - 2, 3);
  }
}
