// Code blocks: language names as the original reports them, highlight.js tokens mapped to the Pygments classes clients style.
import { createRequire } from 'node:module';

// highlight.js with all its languages is large and most messages have no code: load it on first use.
const require = createRequire(import.meta.url);
let hljsModule: typeof import('highlight.js').default | null = null;
const hljs = () => (hljsModule ??= require('highlight.js') as typeof import('highlight.js').default);

/** Language alias → [highlight.js language, display name the original puts in data-code-language]. */
const LANGUAGES: Record<string, [string, string]> = {};
function lang(aliases: string, hl: string, name: string): void {
  for (const a of aliases.split(' ')) LANGUAGES[a] = [hl, name];
}
lang('python py py3 python3 sage', 'python', 'Python');
lang('python2 py2', 'python', 'Python 2.x');
lang('pycon', 'python-repl', 'Python console session');
lang('javascript js', 'javascript', 'JavaScript');
lang('typescript ts', 'typescript', 'TypeScript');
lang('jsx react', 'javascript', 'JSX');
lang('tsx', 'typescript', 'TSX');
lang('php php3 php4 php5 inc', 'php', 'PHP');
lang('css+php', 'php', 'CSS+PHP');
lang('html+php', 'php', 'HTML+PHP');
lang('javascript+php js+php', 'php', 'JavaScript+PHP');
lang('xml+php', 'php', 'XML+PHP');
lang('tex latex', 'latex', 'TeX');
lang('c h', 'c', 'C');
lang('cpp c++ cxx hpp', 'cpp', 'C++');
lang('csharp cs c#', 'csharp', 'C#');
lang('java', 'java', 'Java');
lang('kotlin kt', 'kotlin', 'Kotlin');
lang('scala', 'scala', 'Scala');
lang('go golang', 'go', 'Go');
lang('rust rs', 'rust', 'Rust');
lang('ruby rb duby', 'ruby', 'Ruby');
lang('bash sh ksh zsh shell', 'bash', 'Bash');
lang('console shell-session', 'shell', 'Bash Session');
lang('powershell ps1 pwsh', 'powershell', 'PowerShell');
lang('json', 'json', 'JSON');
lang('yaml yml', 'yaml', 'YAML');
lang('toml', 'ini', 'TOML');
lang('ini cfg', 'ini', 'INI');
lang('html', 'xml', 'HTML');
lang('xml', 'xml', 'XML');
lang('css', 'css', 'CSS');
lang('scss', 'scss', 'SCSS');
lang('less', 'less', 'LessCss');
lang('sql', 'sql', 'SQL');
lang('postgresql postgres', 'pgsql', 'PostgreSQL SQL dialect');
lang('mysql', 'sql', 'MySQL');
lang('diff udiff', 'diff', 'Diff');
lang('markdown md', 'markdown', 'Markdown');
lang('haskell hs', 'haskell', 'Haskell');
lang('perl pl', 'perl', 'Perl');
lang('lua', 'lua', 'Lua');
lang('r s splus', 'r', 'S');
lang('swift', 'swift', 'Swift');
lang('objective-c objectivec objc', 'objectivec', 'Objective-C');
lang('docker dockerfile', 'dockerfile', 'Docker');
lang('make makefile mf bsdmake', 'makefile', 'Makefile');
lang('elixir ex exs', 'elixir', 'Elixir');
lang('erlang', 'erlang', 'Erlang');
lang('clojure clj', 'clojure', 'Clojure');
lang('ocaml', 'ocaml', 'OCaml');
lang('common-lisp cl lisp', 'lisp', 'Common Lisp');
lang('scheme scm', 'scheme', 'Scheme');
lang('nix nixos', 'nix', 'Nix');
lang('matlab', 'matlab', 'Matlab');
lang('julia jl', 'julia', 'Julia');
lang('dart', 'dart', 'Dart');
lang('groovy', 'groovy', 'Groovy');
lang('vim', 'vim', 'VimL');
lang('fortran f90', 'fortran', 'Fortran');
lang('delphi pas pascal objectpascal', 'delphi', 'Delphi');
lang('graphql', 'graphql', 'GraphQL');
lang('nginx', 'nginx', 'Nginx configuration file');
lang('text', 'plaintext', 'Text only');

export interface CodeLanguage {
  /** highlight.js language, or null to leave the code unhighlighted. */
  hl: string | null;
  /** data-code-language value. */
  name: string;
}

export function codeLanguage(raw: string): CodeLanguage {
  const key = raw.toLowerCase();
  const known = LANGUAGES[key];
  if (known) return { hl: known[0], name: known[1] };
  const hl = hljs().getLanguage(key);
  return hl ? { hl: key, name: hl.name ?? raw } : { hl: null, name: raw };
}

/** A first line naming the language (#!python, #!/usr/bin/env python, :::python) when no language is given. */
const SHEBANG = /^(?:#!|:::)(?:\S*\/)?(?:env\s+)?([\w+#.-]+)\s*$/;

export function shebangLanguage(code: string): string | null {
  const m = SHEBANG.exec(code.slice(0, code.indexOf('\n') >>> 0));
  return m && codeLanguage(m[1]).hl ? m[1] : null;
}

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

/** Pygments names some identifiers specially; everything else unclassified is a plain name. */
const PSEUDO: Record<string, Record<string, string>> = {
  python: { self: 'bp', cls: 'bp', True: 'kc', False: 'kc', None: 'kc' },
  javascript: { this: 'bp' },
  typescript: { this: 'bp' },
  php: { this: 'bp' },
};

const PLAIN_NAME: Record<string, string> = { php: 'nx', javascript: 'nx', typescript: 'nx' };

function refine(cls: string, text: string, atStart: boolean): string {
  if (cls === 's') return text.startsWith('"') ? 's2' : text.startsWith("'") ? 's1' : text.startsWith('`') ? 'sb' : 's';
  if (cls === 'm') return /^0x/i.test(text) ? 'mh' : /[.eE]/.test(text) && !/^0x/i.test(text) ? 'mf' : 'mi';
  if (cls === 'c') return atStart && text.startsWith('#!') ? 'ch' : /^(\/\*|<!--|""")/.test(text) ? 'cm' : 'c1';
  return cls;
}

type Piece = [cls: string, text: string];

const WORDS = /(\s+)|([A-Za-z_$][\w$]*)|(\d[\w.]*)|([=+\-*/%<>!&|^~?]+)|([()[\]{},;:.@]+)|([^])/gu;

/** Text no highlight.js scope covers, split the way Pygments lexes it: names, numbers, operators, punctuation. */
function plainPieces(text: string, hl: string): Piece[] {
  if (hl === 'latex') return [...text.matchAll(/([{}]+)|([^{}]+)/g)].map((m) => [m[1] ? 'nb' : '', m[0]]);
  if (['plaintext', 'markdown', 'diff'].includes(hl)) return [['', text]];
  const out: Piece[] = [];
  for (const m of text.matchAll(WORDS)) {
    if (m[2]) out.push([PSEUDO[hl]?.[m[2]] ?? PLAIN_NAME[hl] ?? 'n', m[2]]);
    else if (m[3]) out.push([refine('m', m[3], false), m[3]]);
    else if (m[4]) out.push(['o', m[4]]);
    else if (m[5]) out.push(['p', m[5]]);
    else out.push(['', m[0]]);
  }
  return out;
}

const ENTITIES: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#x27;': "'", '&#39;': "'" };
const unescape = (s: string): string => s.replace(/&(?:amp|lt|gt|quot|#x27|#39);/g, (e) => ENTITIES[e]);
export const escapeHtml = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

/** Walks highlight.js's HTML (spans and escaped text only) into classed pieces. */
function pieces(html: string, hl: string): Piece[] {
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
      const cls = [...stack].reverse().find((c) => c) ?? '';
      if (cls) out.push([refine(cls, text, offset === 0), text]);
      else out.push(...plainPieces(text, hl));
      offset += text.length;
    }
  }
  return out;
}

/** The inner HTML of <code>: Pygments-classed spans, adjacent pieces of one class merged. */
export function highlight(code: string, hl: string | null): string {
  if (!hl || !hljs().getLanguage(hl)) return escapeHtml(code);
  const merged: Piece[] = [];
  for (const [cls, text] of pieces(hljs().highlight(code, { language: hl, ignoreIllegals: true }).value, hl)) {
    const last = merged[merged.length - 1];
    if (last && last[0] === cls) last[1] += text;
    else merged.push([cls, text]);
  }
  return merged.map(([cls, text]) => (cls && text.trim() ? `<span class="${cls}">${escapeHtml(text)}</span>` : escapeHtml(text))).join('');
}

/** Code block body as the original normalizes it: trailing spaces and surrounding blank lines dropped, one final newline. */
export function tidyCode(text: string): string {
  const lines = text.split('\n').map((l) => l.replace(/\s+$/, ''));
  while (lines.length && !lines[0]) lines.shift();
  while (lines.length && !lines[lines.length - 1]) lines.pop();
  return lines.join('\n') + '\n';
}

export function codeBlockHtml(rawCode: string, langInfo: string, defaultLang: string): string {
  const code = tidyCode(rawCode);
  const given = langInfo || defaultLang;
  if (!given) {
    const sb = shebangLanguage(code);
    return `<div class="codehilite"><pre><span></span><code>${highlight(code, sb ? codeLanguage(sb).hl : null)}</code></pre></div>\n`;
  }
  const l = codeLanguage(given);
  return `<div class="codehilite" data-code-language="${escapeHtml(l.name)}"><pre><span></span><code>${highlight(code, l.hl)}</code></pre></div>\n`;
}
