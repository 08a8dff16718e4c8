// After sanitizing: the few spellings sanitize-html normalizes that the original's clients compare byte for byte.

// Only blocks without a named language: the original re-serializes a block it adds data-code-language
// to (with lxml), which writes quotes in text plainly.
const CODE_BLOCK = /(<div class="codehilite"><pre><span><\/span><code>)([\s\S]*?)(<\/code><\/pre><\/div>)/g;
// KaTeX's TeX annotation and the original's tex-error spans escape quotes the way Python's html.escape does.
const TEX_SOURCE = /(<annotation encoding="application\/x-tex">|<span class="tex-error">)([^<]*)(<\/annotation>|<\/span>)/g;

/** Quotes in the text (not the tags) of a sanitized fragment, as entities; only text runs holding one are rewritten. */
function quoteText(body: string, apostrophe: string): string {
  if (!body.includes('"') && !body.includes("'")) return body;
  // Text runs lie between '>' and '<' (sanitized attribute values hold neither); the body starts with text.
  return ('>' + body).replace(/>[^<]*["'][^<]*(?=<|$)/g, (t) => t.replace(/"/g, '&quot;').replace(/'/g, apostrophe)).slice(1);
}

/**
 * sanitize-html re-serializes text with only `& < >` escaped and rebuilds style attributes
 * without their trailing `;`. The original escapes `"` and `'` in code blocks (Pygments does) and
 * keeps KaTeX's styles as KaTeX writes them (`height:0.8641em;`) and its TeX annotation's `&#x27;`. Both changes only add escapes or
 * a `;` inside an already sanitized attribute, so the output stays as safe as the sanitizer left it.
 */
export function originalBytes(html: string): string {
  if (html.includes('codehilite')) {
    html = html.replace(CODE_BLOCK, (_m, open: string, body: string, close: string) => open + quoteText(body, '&#39;') + close);
  }
  if (html.includes('tex')) {
    // An inline $$…$$ error is plain Markdown text in the original, which leaves quotes as they are.
    html = html.replace(TEX_SOURCE, (m, open: string, body: string, close: string) => (body.startsWith('$$') ? m : open + quoteText(body, '&#x27;') + close));
  }
  // A preview closing a spoiler is the last element there in the original, with no line break after it.
  if (html.includes('spoiler-content')) html = html.replace(/(<div class="message_inline_image[^"]*">(?:(?!<\/div>)[\s\S])*<\/div>)\n(<\/div><\/div>)/g, '$1$2');
  if (html.includes(' style="')) html = html.replace(/ style="([^"]*[^;"])"/g, ' style="$1;"');
  return html;
}
