// Code blocks: language names as the original reports them, the first-line language marker, the block's structure.
import { escapeHtml, hljs, highlight } from './highlight.js';

export { escapeHtml };

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

/**
 * A first line marking the language when the fence names none: `#!` or two or more colons, an
 * optional path, the language, and optionally `hl_lines="1 3"` (lines to highlight, counted from
 * this line, which stays in the block), as the original's code highlighter reads it.
 */
const SHEBANG = /^(?:::+|#!)((?:\/\w+)*[/ ])?([\w#.+-]*)\s*(?:hl_lines=("|')(.*?)\3)?/;

export interface Shebang {
  /** The language named, when highlight.js knows it. */
  lang: string | null;
  hlLines: Set<number>;
}

export function shebang(code: string): Shebang | null {
  const m = SHEBANG.exec(code.slice(0, code.indexOf('\n') >>> 0));
  if (!m) return null;
  const nums = (m[4] ?? '').split(/\s+/).filter(Boolean).map(Number);
  // Like the original, a malformed list highlights nothing rather than part of it.
  const hlLines = new Set(nums.every((n) => Number.isInteger(n)) ? nums : []);
  return { lang: m[2] && codeLanguage(m[2]).hl ? m[2] : null, hlLines };
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
    const sb = shebang(code);
    return `<div class="codehilite"><pre><span></span><code>${highlight(code, sb?.lang ? codeLanguage(sb.lang).hl : null, sb?.hlLines)}</code></pre></div>\n`;
  }
  const l = codeLanguage(given);
  return `<div class="codehilite" data-code-language="${escapeHtml(l.name)}"><pre><span></span><code>${highlight(code, l.hl)}</code></pre></div>\n`;
}
