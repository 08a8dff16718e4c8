// Recognizes the renderer's everyday output: a strict subset of HTML that the sanitizer would return unchanged, so it can skip the sanitizer's full parse.

/** What the general sanitizer allows (sanitize.ts passes its own lists, so the two cannot drift apart). */
export interface AllowList {
  tags: readonly string[];
  /** Attributes by tag; '*' for every tag. */
  attributes: Readonly<Record<string, readonly string[]>>;
  schemes: readonly string[];
  schemesByTag: Readonly<Record<string, readonly string[]>>;
}

/** Elements without content or end tag, among the allowed ones (written "<br>", never "<br />"). */
const VOID = new Set(['br', 'hr', 'img']);
/**
 * The HTML parser under the sanitizer closes an open element when certain others open right
 * inside it (a <p> by a <div>, an <li> by an <li>): the sanitized output then differs from its
 * input, so such nesting is left to the sanitizer. This is that table, for the allowed tags.
 */
const P_ONLY = new Set(['p']);
const IMPLIES_CLOSE: Record<string, Set<string>> = {
  tr: new Set(['tr', 'th', 'td']),
  th: new Set(['th']),
  td: new Set(['thead', 'th', 'td']),
  li: new Set(['li']),
  tbody: new Set(['thead', 'tbody']),
  ...Object.fromEntries(['p', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'blockquote', 'div', 'hr', 'ol', 'pre', 'table', 'ul'].map((t) => [t, P_ONLY])),
};
/** Attributes whose value is a URL the sanitizer checks against the allowed schemes. */
const URL_ATTRIBUTES = new Set(['href', 'src']);
/** A scheme as the sanitizer finds it. */
const SCHEME = /^([a-zA-Z][a-zA-Z0-9.+-]*):/;

/**
 * One token: an end tag, a start tag with double-quoted attributes separated by single spaces, or
 * text. Anything else (comments, unquoted or valueless attributes, capitals, stray "<") matches none.
 */
const TOKEN = /<\/([a-z][a-z0-9]*)>|<([a-z][a-z0-9]*)((?: [a-z][a-z0-9-]*="[^"<>]*")*)>|([^<]+)/y;
const ATTRIBUTE = / ([a-z][a-z0-9-]*)="([^"]*)"/g;
/** The only character references kept as they are: the sanitizer decodes others and writes them back differently. */
const ENTITY = /&(?:amp|lt|gt|quot);/y;

export class SafeHtml {
  private readonly tags: Set<string>;
  private readonly attributes: Map<string, Set<string>>;
  private readonly anyTag: Set<string>;
  private readonly schemes: Set<string>;
  private readonly schemesByTag: Map<string, Set<string>>;

  constructor(allow: AllowList) {
    this.tags = new Set(allow.tags);
    this.anyTag = new Set(allow.attributes['*'] ?? []);
    this.attributes = new Map(Object.entries(allow.attributes).map(([tag, names]) => [tag, new Set(names)]));
    this.schemes = new Set(allow.schemes);
    this.schemesByTag = new Map(Object.entries(allow.schemesByTag).map(([tag, s]) => [tag, new Set(s)]));
  }

  /**
   * The sanitized form of `html` when it is in the subset the sanitizer returns unchanged (except
   * `&quot;` in text, which it writes as a plain quote, as done here); null for anything else,
   * which the caller must sanitize in full. Never a looser check than the sanitizer's: an unknown
   * tag or attribute, a style, a URL it would judge, odd nesting or markup all answer null.
   */
  verbatim(html: string): string | null {
    const stack: string[] = [];
    let out = '';
    let at = 0;
    while (at < html.length) {
      TOKEN.lastIndex = at;
      const m = TOKEN.exec(html);
      if (!m) return null;
      at = TOKEN.lastIndex;
      const [token, closing, opening, attrs, text] = m;
      if (text !== undefined) {
        const kept = this.text(text);
        if (kept === null) return null;
        out += kept;
      } else if (closing !== undefined) {
        if (VOID.has(closing) || stack.pop() !== closing) return null;
        out += token;
      } else {
        if (!this.tags.has(opening) || IMPLIES_CLOSE[opening]?.has(stack[stack.length - 1])) return null;
        if (attrs && !this.attributesOk(opening, attrs)) return null;
        if (!VOID.has(opening)) stack.push(opening);
        out += token;
      }
    }
    return stack.length === 0 ? out : null;
  }

  /** Text with no ">" and only the four kept references; `&quot;` becomes `"`. Null otherwise. */
  private text(text: string): string | null {
    if (text.includes('>') || text.includes('\0')) return null;
    let amp = text.indexOf('&');
    if (amp < 0) return text;
    let out = '';
    let from = 0;
    while (amp >= 0) {
      ENTITY.lastIndex = amp;
      const m = ENTITY.exec(text);
      if (!m) return null;
      if (m[0] === '&quot;') {
        out += text.slice(from, amp) + '"';
        from = amp + m[0].length;
      }
      amp = text.indexOf('&', amp + 1);
    }
    return out + text.slice(from);
  }

  private attributesOk(tag: string, attrs: string): boolean {
    const seen = new Set<string>();
    const forTag = this.attributes.get(tag);
    for (const [, name, value] of attrs.matchAll(ATTRIBUTE)) {
      // Styles are rewritten by the sanitizer's CSS filter; an empty value may be dropped.
      if (name === 'style' || value === '' || value.includes('\0') || seen.has(name)) return false;
      seen.add(name);
      if (!this.anyTag.has(name) && !forTag?.has(name)) return false;
      if (!this.referencesOk(value)) return false;
      if (URL_ATTRIBUTES.has(name) && !this.urlOk(tag, value)) return false;
    }
    return true;
  }

  /** Only the four kept references in an attribute value (the sanitizer writes those back as they are). */
  private referencesOk(value: string): boolean {
    for (let amp = value.indexOf('&'); amp >= 0; amp = value.indexOf('&', amp + 1)) {
      ENTITY.lastIndex = amp;
      if (!ENTITY.test(value)) return false;
    }
    return true;
  }

  /** A URL the sanitizer keeps: an allowed scheme for the tag, or a same-site path or fragment. */
  private urlOk(tag: string, raw: string): boolean {
    const url = raw.replace(/&quot;/g, '"').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
    // Characters the sanitizer strips before judging, and comments it removes: left to it.
    if (/[\x00-\x20]/.test(url) || url.includes('<!--')) return false;
    const scheme = SCHEME.exec(url);
    if (scheme) return (this.schemesByTag.get(tag) ?? this.schemes).has(scheme[1].toLowerCase());
    return (url.startsWith('/') || url.startsWith('#')) && !/^[/\\]{2}/.test(url);
  }
}
