// Organization linkifiers (pattern → URL template): compiled once, applied to message text and to topics.
import type { StateCore } from 'markdown-it';
import { linkTextMatches } from './text-links.js';
import type { RenderContext } from './context.js';

/** A linkifier as the API stores it: a Python-flavored regex and an RFC 6570 URL template. */
export interface Linkifier {
  id: number;
  pattern: string;
  url_template: string;
}

export interface CompiledLinkifier {
  id: number;
  re: RegExp;
  template: string;
}

/** Compiled lists by the list they came from: the realm's cached list is compiled once, not per message. */
const compiled = new WeakMap<readonly Linkifier[], readonly CompiledLinkifier[]>();

/**
 * The pattern only matches at a word start (after whitespace, a quote, "(", ",", ":" or "<") and
 * not inside a longer word, as in the original. Python named groups are rewritten to JS syntax.
 * Patterns that do not compile are skipped rather than failing every message. Memoized by the
 * identity of `list`, so callers must not modify a list once compiled (the cached lists are frozen).
 */
export function compileLinkifiers(list: readonly Linkifier[]): readonly CompiledLinkifier[] {
  const hit = compiled.get(list);
  if (hit) return hit;
  const out: CompiledLinkifier[] = [];
  for (const l of list) {
    const js = l.pattern.replace(/\(\?P</g, '(?<').replace(/\(\?P=(\w+)\)/g, '\\k<$1>');
    try {
      out.push({ id: l.id, re: new RegExp(`(?<![^\\s'"(,:<])(?:${js})(?!\\w)`, 'gu'), template: l.url_template });
    } catch {
      // An invalid pattern links nothing.
    }
  }
  compiled.set(list, out);
  return out;
}

const UNRESERVED = /[A-Za-z0-9\-._~]/;

function encode(value: string, reserved: boolean): string {
  let out = '';
  for (const ch of value) {
    if (UNRESERVED.test(ch) || (reserved && /[:/?#[\]@!$&'()*+,;=%]/.test(ch))) out += ch;
    else out += [...new TextEncoder().encode(ch)].map((b) => '%' + b.toString(16).toUpperCase().padStart(2, '0')).join('');
  }
  return out;
}

/** Expands {var}, {+var} and {#var} with the match's named groups. */
export function expandTemplate(template: string, groups: Record<string, string | undefined>): string {
  return template.replace(/\{([+#]?)([A-Za-z0-9_]+)\}/g, (_m, op: string, name: string) => {
    const v = groups[name] ?? '';
    return (op === '#' ? '#' : '') + encode(v, op !== '');
  });
}

export interface LinkMatch {
  start: number;
  end: number;
  text: string;
  url: string;
}

/** Non-overlapping linkifier matches in text; earlier linkifiers win ties, as in the original. */
export function linkifierMatches(text: string, linkifiers: readonly CompiledLinkifier[]): LinkMatch[] {
  const found: LinkMatch[] = [];
  for (const l of linkifiers) {
    l.re.lastIndex = 0;
    for (const m of text.matchAll(l.re)) {
      const start = m.index;
      const end = start + m[0].length;
      if (!m[0] || found.some((f) => start < f.end && f.start < end)) continue;
      found.push({ start, end, text: m[0], url: expandTemplate(l.template, m.groups ?? {}) });
    }
  }
  return found.sort((a, b) => a.start - b.start);
}

/** Core rule: splits text tokens (outside links and code) at linkifier matches. */
export function applyLinkifiers(state: StateCore): void {
  const ctx = (state.env as { ctx: RenderContext }).ctx;
  if (!ctx.linkifiers.length) return;
  linkTextMatches(state, (text) => linkifierMatches(text, ctx.linkifiers).map((m) => ({ ...m, href: m.url })), 'linkifier');
}
