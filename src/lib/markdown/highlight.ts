// Code highlighting: highlight.js tokens reclassed as the original's Pygments lexers class them, line by line.
import { createRequire } from 'node:module';
import { profileOf, type Profile } from './pygments-profiles.js';

// highlight.js with all its languages is large and most messages have no code: load it on first use.
const require = createRequire(import.meta.url);
let hljsModule: typeof import('highlight.js').default | null = null;
export const hljs = () => (hljsModule ??= require('highlight.js') as typeof import('highlight.js').default);

/** highlight.js scope → Pygments short class (the original's clients style these). */
const SCOPES: Record<string, string> = {
  keyword: 'k', built_in: 'nb', type: 'kt', literal: 'kc', operator: 'o', punctuation: 'p', property: 'py',
  subst: 'si', symbol: 'ss', regexp: 'sr', 'char.escape': 'se', doctag: 'sd', meta: 'cp', 'meta.keyword': 'cp',
  'meta.string': 'cpf', title: 'n', 'title.function': 'nf', 'title.class': 'nc', 'title.class.inherited': 'nc',
  variable: 'nv', 'variable.language': 'bp', 'variable.constant': 'no', attr: 'na', attribute: 'na', name: 'nt',
  'selector-tag': 'nt', 'selector-class': 'nc', 'selector-id': 'nn', 'selector-attr': 'na', 'selector-pseudo': 'nd',
  section: 'gh', emphasis: 'ge', strong: 'gs', addition: 'gi', deletion: 'gd', link: 'nl', quote: 'c1', bullet: 'k',
  'template-variable': 'nv', 'template-tag': 'cp', tag: '', params: '', function: '', class: '', string: 's', number: 'm', comment: 'c',
};

function refine(cls: string, text: string, atStart: boolean, prof: Profile | undefined): string {
  if (cls === 's') {
    if (prof?.str === 's') return 's';
    return text.startsWith('"') ? 's2' : text.startsWith("'") ? 's1' : text.startsWith('`') ? 'sb' : 's';
  }
  if (cls === 'm') return /^0x/i.test(text) ? 'mh' : /[.eE]/.test(text) ? (prof?.float ?? 'mf') : (prof?.int ?? 'mi');
  if (cls === 'c') return atStart && text.startsWith('#!') ? 'ch' : /^(\/\*|<!--|""")/.test(text) ? 'cm' : 'c1';
  return cls;
}

type Piece = [cls: string, text: string];

const WORDS = /(\s+)|([A-Za-z_$][\w$]*)|(\d[\w.]*)|([=+\-*/%<>!&|^~?]+)|([()[\]{},;:.@]+)|([^])/gu;

/** Text no highlight.js scope covers, split the way Pygments lexes it: names, numbers, operators, punctuation. */
function plainPieces(text: string, hl: string, prof: Profile | undefined): Piece[] {
  if (hl === 'latex') return [...text.matchAll(/([{}]+)|([^{}]+)/g)].map((m) => [m[1] ? 'nb' : '', m[0]]);
  if (['plaintext', 'markdown', 'diff'].includes(hl)) return [['', text]];
  const out: Piece[] = [];
  for (const m of text.matchAll(WORDS)) {
    if (m[2]) out.push([hl === 'php' ? 'nx' : 'n', m[2]]);
    else if (m[3]) out.push([refine('m', m[3], false, prof), m[3]]);
    else if (m[4]) out.push(['o', m[4]]);
    else if (m[5]) {
      // Pygments' C-like lexers read ':' as an operator, Python's as punctuation.
      // Which of these marks a lexer calls operators differs: ':' in C-like lexers, '[' ']' in Java's.
      const ops = prof ? (prof.colon === 'o' ? ':' : '') + (prof.bracketOps ? '[]' : '') : '';
      if (!ops || !/[:[\]]/.test(m[5])) out.push(['p', m[5]]);
      else for (const ch of m[5]) out.push([ops.includes(ch) ? 'o' : 'p', ch]);
    } else out.push(['', m[0]]);
  }
  return out;
}

const ENTITIES: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#x27;': "'", '&#39;': "'" };
const unescape = (s: string): string => s.replace(/&(?:amp|lt|gt|quot|#x27|#39);/g, (e) => ENTITIES[e]);

export const escapeHtml = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

/**
 * Code text escaped as the sanitizer's shortcut keeps it (`'` stays a plain character), so code
 * messages skip sanitize-html's full parse; `original-bytes.ts` then writes `&#39;` as Pygments does.
 */
const escapeCode = (s: string): string => (NEEDS_ESCAPE.test(s) ? s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;') : s);
const NEEDS_ESCAPE = /[&<>"]/;

/** Walks highlight.js's HTML (spans and escaped text only) into classed pieces. */
function pieces(html: string, hl: string, prof: Profile | undefined): Piece[] {
  const out: Piece[] = [];
  const stack: string[] = [];
  let offset = 0;
  for (const m of html.matchAll(/<span class="([^"]*)">|<\/span>|[^<]+/g)) {
    if (m[1] !== undefined) {
      const [first, ...rest] = m[1].split(' ');
      const scope = [first.replace(/^hljs-/, ''), ...rest.map((r) => r.replace(/_+$/, ''))].join('.');
      stack.push(SCOPES[scope] ?? SCOPES[scope.split('.')[0]] ?? '');
    } else if (m[0] === '</span>') stack.pop();
    else {
      const text = unescape(m[0]);
      let cls = '';
      for (let i = stack.length - 1; i >= 0 && !cls; i--) cls = stack[i];
      // A preprocessor line (#include <x>) is one cp token and its file name a cpf, as Pygments' C lexers read it.
      if (prof && stack.includes('cp') && cls !== 'cp') cls = cls === 's' ? 'cpf' : cls === 'k' ? 'cp' : cls;
      if (cls) out.push([refine(cls, text, offset === 0, prof), text]);
      else out.push(...plainPieces(text, hl, prof));
      offset += text.length;
    }
  }
  return out;
}

const IDENT = /^[A-Za-z_$@][\w$]*[?!]?$/;
const HAS_SPACE = /\s/;
/** Classes whose text Pygments splits at whitespace (names, keywords, operators), unlike strings and comments. */
const SPLITTABLE = /^(?:k|n|o|p|m|b|g[^dih])/;

/** Reclasses pieces as the language's Pygments lexer does: keyword kinds, the name after a keyword, whitespace tokens. */
function pygmentize(list: Piece[], prof: Profile): Piece[] {
  const out: Piece[] = [];
  let prevKeyword = '';
  let lastString = '';
  let afterDot = false;
  for (const [cls0, text0] of list) {
    // Interpolation: Pygments classes only the delimiters as `si`, the expression inside as code.
    const interp = cls0 === 'si' ? /^([$#]?\{)(.+)(\})$/s.exec(text0) : null;
    if (interp) {
      out.push(['si', interp[1]], ...pygmentize(plainPieces(interp[2], '', prof), prof), ['si', interp[3]]);
      continue;
    }
    if (prof.inlinePhp && cls0 === 'cp' && text0 === '<?php') {
      out.push(['o', '<?'], ['nx', 'php']);
      continue;
    }
    // A preprocessor token keeps its inner spaces (<!DOCTYPE html>); spaces after it are whitespace tokens.
    const trailing = cls0 === 'cp' && prof.ws ? /\s+$/.exec(text0) : null;
    if (trailing) {
      out.push(['cp', text0.slice(0, trailing.index)], ['w', trailing[0]]);
      continue;
    }
    const parts = (cls0 === '' || SPLITTABLE.test(cls0)) && HAS_SPACE.test(text0) ? text0.split(/(\s+)/) : [text0];
    for (const text of parts) {
      if (!text) continue;
      let cls = cls0;
      if (HAS_SPACE.test(text) && !text.trim()) {
        out.push([cls === '' || SPLITTABLE.test(cls) ? (prof.ws ? 'w' : '') : cls, text]);
        continue;
      }
      if (IDENT.test(text) && !/^[sc]/.test(cls)) {
        const fixed = prof.words[text];
        const after = prof.after[prevKeyword];
        if (afterDot && prof.attr && /^(?:n|nx|nb|py|na|nf)$/.test(cls)) cls = prof.attr;
        else if (fixed) cls = fixed;
        else if (after && /^(?:n|kt|bp|$)/.test(cls)) cls = after;
        else cls = prof.remap[cls] ?? (cls === 'n' || cls === 'nx' ? prof.name : cls);
      } else if (prof.str === 'quote' && /^s[12b]?$/.test(cls)) {
        const prev = out[out.length - 1];
        if (prof.docstrings && /^("{3}|'{3})/.test(text) && (!prev || /(^|\n)[ \t]*$/.test(prev[1]) && !prev[1].trim())) {
          // A docstring: Pygments reads its indentation as whitespace and the string as `sd`.
          if (prev && /[ \t]$/.test(prev[1])) {
            const indent = /[ \t]+$/.exec(prev[1])![0];
            prev[1] = prev[1].slice(0, -indent.length);
            if (!prev[1]) out.pop();
            out.push(['w', indent]);
          }
          out.push(['sd', text]);
          continue;
        }
        // A string prefix (f, r, b) is its own `sa` token; the rest of a string keeps its opening quote's class.
        const prefixed = /^([rRbBuUfF]{1,2})(["'].*)$/s.exec(text);
        if (prefixed) {
          lastString = refine('s', prefixed[2], false, prof);
          out.push(['sa', prefixed[1]], [lastString, prefixed[2]]);
          continue;
        }
        cls = /^["'`]/.test(text) ? (lastString = refine('s', text, false, prof)) : lastString || cls;
      } else cls = prof.remap[cls] ?? cls;
      if (!/^s/.test(cls)) lastString = cls === 'si' || /^[rRbBuUfF]{1,2}$/.test(text) ? lastString : '';
      prevKeyword = cls.startsWith('k') ? text : '';
      afterDot = text === '.';
      out.push([cls, text]);
    }
  }
  return out;
}

/** Pygments' diff lexer is line-based: each line's first characters decide its class. */
function diffPieces(code: string): Piece[] {
  const out: Piece[] = [];
  for (const line of code.split(/(?<=\n)/)) {
    const body = line.replace(/\n$/, '');
    const cls = /^(?:[Ii]ndex|diff)/.test(body) || body.startsWith('=') ? 'gh'
      : /^(?:< |-)/.test(body) ? 'gd' : /^(?:> |\+)/.test(body) ? 'gi'
      : /^(?:@|\d+(?:,\d+)?[adc]\d+(?:,\d+)?$)/.test(body) ? 'gu' : body.startsWith('!') ? 'gs' : '';
    if (!cls && body.startsWith(' ')) out.push(['w', ' '], ['', body.slice(1)]);
    else out.push([cls, body]);
    if (line.endsWith('\n')) out.push(['', '\n']);
  }
  return out;
}

/** Line numbers (1-based) to wrap in `hll`, as Pygments' hl_lines option does. */
export type HighlightLines = ReadonlySet<number>;

/** The inner HTML of <code>: Pygments-classed spans cut at line ends, adjacent pieces of one class merged. */
export function highlight(code: string, hl: string | null, hlLines?: HighlightLines): string {
  let list: Piece[];
  if (!hl || !hljs().getLanguage(hl)) list = [['', code]];
  else if (hl === 'diff') list = diffPieces(code);
  else {
    const prof = profileOf(hl);
    list = pieces(hljs().highlight(code, { language: hl, ignoreIllegals: true }).value, hl, prof);
    if (prof) list = pygmentize(list, prof);
  }
  const merged: Piece[] = [];
  for (const [cls, text] of list) {
    const last = merged[merged.length - 1];
    if (last && last[0] === cls) last[1] += text;
    else merged.push([cls, text]);
  }
  const lines: string[] = [];
  let cur = '';
  for (const [cls, text] of merged) {
    const parts = text.includes('\n') ? text.split('\n') : [text];
    for (let i = 0; i < parts.length; i++) {
      if (i > 0) {
        lines.push(cur + '\n');
        cur = '';
      }
      const part = parts[i];
      if (part) cur += cls && (cls === 'w' || part.trim()) ? `<span class="${cls}">${escapeCode(part)}</span>` : escapeCode(part);
    }
  }
  if (cur) lines.push(cur);
  return hlLines?.size ? lines.map((l, i) => (hlLines.has(i + 1) ? `<span class="hll">${l}</span>` : l)).join('') : lines.join('');
}
