// How Pygments' lexer for each common language classes what highlight.js finds: keyword kinds, names, strings, whitespace.

/**
 * One lexer's habits. highlight.js finds strings, comments, numbers and keywords; a profile says
 * which Pygments short class each gets in this language (the original's clients colour by those).
 */
export interface Profile {
  /** Whitespace between tokens is its own `w` token (most Pygments lexers since 2.11; not Python's). */
  ws: boolean;
  /** Strings: `quote` classes by the opening quote (s2 ", s1 ', sb `), `s` keeps one class. */
  str: 'quote' | 's';
  /** Integer and float classes (some lexers say plain `m`, JavaScript's says `mf` for every number). */
  int: string;
  float: string;
  /** The class of an identifier nothing else classes. */
  name: string;
  /** The class of `:` outside strings (an operator in C-like lexers, punctuation in Python's). */
  colon: string;
  /** `[` and `]` are operators (Java's lexer), not punctuation. */
  bracketOps?: boolean;
  /** Words with a fixed class (keywords by kind, builtins, constants). */
  words: Record<string, string>;
  /** The class of the identifier right after one of these keywords (`def` → nf, `class` → nc). */
  after: Record<string, string>;
  /** highlight.js-derived classes this lexer spells differently. */
  remap: Record<string, string>;
  /** The class of an identifier right after `.` (Java's lexer calls it an attribute), if special. */
  attr?: string;
  /** A triple-quoted string opening a line is a docstring (`sd`), its indentation a `w` token. */
  docstrings?: boolean;
  /**
   * The original lexes code blocks with PHP's `startinline` (code without an opening tag): an
   * opening `<?php` is then operator `<?` and name `php`, not one preprocessor token.
   */
  inlinePhp?: boolean;
}

function words(spec: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [cls, list] of Object.entries(spec)) for (const w of list.split(' ')) if (w) out[w] = cls;
  return out;
}

const base = (p: Partial<Profile>): Profile => ({
  ws: true, str: 's', int: 'mi', float: 'mf', name: 'n', colon: 'o', words: {}, after: {}, remap: {}, ...p,
});

const JS_WORDS = {
  k: 'for in while do break return continue switch case default if else throw try catch finally yield await async this of static export import from as debugger extends super new delete typeof instanceof void',
  kd: 'var let const with function class',
  kr: 'abstract boolean byte char double enum final float goto implements int interface long native package private protected public short synchronized throws transient volatile constructor get set',
  kc: 'true false null NaN Infinity undefined',
  nb: 'Array Boolean Date BigInt Function Math ArrayBuffer Number Object RegExp String Promise Proxy Symbol Error JSON Map Set WeakMap WeakSet Reflect isFinite isNaN parseFloat parseInt document window globalThis',
};
const C_WORDS = {
  k: 'break case continue default do else for goto if return switch while sizeof typedef struct union enum static extern const volatile register inline restrict',
  kt: 'int long float short double char unsigned signed void bool _Bool size_t ssize_t int8_t int16_t int32_t int64_t uint8_t uint16_t uint32_t uint64_t',
  nb: 'NULL',
  kc: 'true false',
};
const CPP_EXTRA = {
  k: 'class namespace using template typename public private protected virtual override new delete this throw try catch operator friend explicit constexpr noexcept auto static_cast dynamic_cast reinterpret_cast const_cast',
  kt: 'wchar_t',
  kc: 'nullptr',
};

export const PROFILES: Record<string, Profile> = {
  python: base({
    ws: false, str: 'quote', colon: 'p', docstrings: true,
    words: words({
      k: 'and as assert async await break class continue def del elif else except finally for global if lambda nonlocal pass raise return try while with yield match case',
      kn: 'import from', ow: 'in is not or and', kc: 'True False None', bp: 'self cls',
      nb: 'print range len int str float list dict set tuple open isinstance super type object bool enumerate zip map filter sorted min max sum abs any all repr hash id input iter next reversed round',
    }),
    after: { def: 'nf', class: 'nc', import: 'nn', from: 'nn' },
    remap: { nc: 'n', cp: 'nd' },
  }),
  javascript: base({ str: 'quote', int: 'mf', name: 'nx', words: words(JS_WORDS), remap: { nf: 'nx', nc: 'nx', py: 'nx', na: 'nx', bp: 'k', nv: 'nx', nb: 'nx' } }),
  typescript: base({
    str: 'quote', int: 'mf', name: 'nx',
    words: words({ ...JS_WORDS, kr: JS_WORDS.kr.replace(/\b(?:interface|enum) /g, ''), kd: 'var let const with function class interface type enum namespace module declare', kt: 'string number boolean any void never unknown object symbol bigint', k: `${JS_WORDS.k} readonly keyof implements` }),
    after: { interface: 'nx', type: 'nx' },
    remap: { nf: 'nx', nc: 'kt', py: 'nx', na: 'nx', nb: 'kt', bp: 'k' },
  }),
  java: base({
    words: words({
      k: 'assert break case catch continue default do else finally for if goto instanceof new return switch this throw try while extends implements throws super',
      kd: 'abstract const enum final native private protected public static strictfp synchronized transient volatile class interface',
      kt: 'boolean byte char double float int long short void var', kn: 'import package', kc: 'true false null',
    }),
    after: { class: 'nc', interface: 'nc', enum: 'nc', import: 'nn', package: 'nn' },
    remap: { nb: 'n', nv: 'n', py: 'na', kt: 'n' },
    attr: 'na',
    bracketOps: true,
  }),
  c: base({ words: words(C_WORDS), remap: { nb: 'n' } }),
  cpp: base({
    words: words({ k: `${C_WORDS.k} ${CPP_EXTRA.k}`, kt: `${C_WORDS.kt} ${CPP_EXTRA.kt}`, kc: `${C_WORDS.kc} ${CPP_EXTRA.kc}`, nb: 'NULL' }),
    after: { class: 'nc', struct: 'nc', namespace: 'nn', typename: 'nc' },
    remap: { nb: 'n' },
  }),
  objectivec: base({ ws: false, words: words(C_WORDS), remap: { nb: 'n' } }),
  csharp: base({
    int: 'm', float: 'm',
    words: words({
      k: 'abstract as async await base break case catch checked const continue default delegate do else enum event explicit extern finally fixed for foreach goto if implicit in interface internal is lock new operator out override params private protected public readonly ref return sealed sizeof stackalloc static switch this throw try typeof unchecked unsafe virtual void while get set partial yield add remove value alias ascending descending from group into orderby select where join equals using namespace class struct',
      kt: 'bool byte char decimal double dynamic float int long object sbyte short string uint ulong ushort var', kc: 'true false null',
    }),
    after: { class: 'nc', struct: 'nc', interface: 'nc', namespace: 'nn', using: 'nn' },
    remap: { nb: 'kt', nf: 'nf' },
  }),
  go: base({
    name: 'nx',
    words: words({
      k: 'break default select case defer go map chan else goto switch fallthrough if range continue for return',
      kd: 'var func struct type interface const', kn: 'import package', kc: 'true false iota nil',
      kt: 'uint uint8 uint16 uint32 uint64 int int8 int16 int32 int64 float float32 float64 complex64 complex128 byte rune string bool error uintptr',
      nb: 'print println panic recover close complex real imag len cap append copy delete new make',
    }),
    remap: { nf: 'nx', nc: 'nx', nb: 'nb' },
  }),
  rust: base({
    words: words({
      k: 'as async await box const crate dyn else extern for if impl in loop match move mut pub ref return static super trait unsafe use where while fn struct enum mod type break continue',
      kd: 'let', kt: 'u8 u16 u32 u64 u128 i8 i16 i32 i64 i128 usize isize f32 f64 char str bool', kc: 'true false',
      bp: 'self Self', nb: 'Vec String Option Result Some None Ok Err Box',
    }),
    after: { fn: 'nf', struct: 'nc', enum: 'nc', trait: 'nc', mod: 'nn' },
    remap: { nv: 'n', kt: 'nb' },
  }),
  ruby: base({
    str: 'quote',
    words: words({
      k: 'BEGIN END alias begin break case defined? do else elsif end ensure for if in next redo rescue retry return super then undef unless until when while yield class def module',
      nb: 'puts require require_relative print p attr_accessor attr_reader attr_writer include extend raise loop lambda proc private protected public',
      kc: 'true false nil', nv: 'self',
    }),
    after: { def: 'nf', class: 'nc', module: 'nn' },
    remap: { nv: 'vi', nc: 'no' },
  }),
  php: base({ ws: false, str: 'quote', remap: {}, inlinePhp: true }),
  bash: base({
    str: 'quote', int: 'm', float: 'm', name: '',
    words: words({
      k: 'if fi else while do done for then return function case select break continue until esac elif in',
      nb: 'alias bg bind builtin caller cd command compgen complete declare dirs disown echo enable eval exec exit export false fc fg getopts hash help history jobs kill let local logout popd printf pushd pwd read readonly set shift shopt source suspend test time times trap true type typeset ulimit umask unalias unset wait',
    }),
    remap: { cp: 'ch', n: '', nb: '', o: '', p: '' },
  }),
  sql: base({
    str: 'quote',
    words: words({
      k: 'SELECT FROM WHERE AND OR NOT IN IS NULL LIKE ORDER BY GROUP HAVING LIMIT OFFSET INSERT INTO VALUES UPDATE SET DELETE CREATE TABLE INDEX DROP ALTER ADD PRIMARY KEY FOREIGN REFERENCES JOIN LEFT RIGHT INNER OUTER ON AS DISTINCT UNION ALL ASC DESC CASE WHEN THEN ELSE END EXISTS BETWEEN DEFAULT UNIQUE CONSTRAINT EXPLAIN WITH RETURNING',
    }),
  }),
  json: base({ str: 'quote', words: words({ kc: 'true false null' }), remap: { na: 'nt' } }),
  yaml: base({ remap: { na: 'nt' } }),
  xml: base({ ws: false, remap: { o: 'nt', nt: 'nt', ss: 'ni' } }),
  css: base({ remap: { na: 'k', n: 'kc' } }),
  kotlin: base({
    int: 'm', float: 'm', name: 'n',
    words: words({
      k: 'as break continue do else for if in is return super this throw try when while by catch finally get set import package',
      kd: 'class fun val var object interface', kc: 'true false null', kt: 'Int Long Double Float String Boolean Char Byte Short Unit Any',
    }),
    after: { fun: 'nf', class: 'nc', val: 'nv', var: 'nv', object: 'nc', interface: 'nc' },
  }),
  swift: base({
    ws: false,
    words: words({ k: 'return if else for while in switch case default break continue guard defer do try catch throw', kd: 'func import let var class struct enum protocol extension init', kc: 'true false nil', nb: 'String Int Double Float Bool Array Dictionary print' }),
    after: { func: 'nf', let: 'nv', var: 'nv', import: 'nc', class: 'nc', struct: 'nc' },
  }),
  scala: base({
    words: words({ k: 'def extends object class trait with new if else match case for yield while do return import package try catch finally throw override sealed abstract implicit lazy', kd: 'val var type' }),
    after: { def: 'nf', object: 'nc', class: 'nc', trait: 'nc', extends: 'nc', with: 'nc' },
  }),
  haskell: base({ words: words({ kr: 'case class data default deriving do else family if in infix infixl infixr instance let newtype of then type where module import' }), after: { module: 'nn', import: 'nn' } }),
  lua: base({ ws: false, str: 'quote', words: words({ kd: 'local', kr: 'and break do else elseif end for function goto if in not or repeat return then until while', kc: 'true false nil', nb: 'print pairs ipairs type tostring tonumber require error assert pcall select setmetatable getmetatable' }), after: { function: 'nf' } }),
  perl: base({ words: words({ k: 'my our local sub if elsif else unless while until for foreach return last next redo use no package require print' }), after: { sub: 'nf', use: 'nn' } }),
  r: base({ int: 'm', float: 'm', words: words({ kr: 'if else for while repeat in next break', kc: 'TRUE FALSE NULL NA Inf NaN' }) }),
  dart: base({ str: 'quote', int: 'm', float: 'm', words: words({ k: 'return if else for while do switch case break continue new this super import', kd: 'var final const class extends implements abstract static', kt: 'int double bool void num dynamic String' }), after: { class: 'nc' } }),
  elixir: base({ str: 'quote', words: words({ kd: 'def defp defmodule defmacro defstruct defprotocol defimpl', k: 'do end fn case cond if else unless when with' }), remap: { nc: 'nc' } }),
  powershell: base({ ws: false, str: 'quote', words: words({ k: 'function return if else elseif foreach for while param begin process end switch' }), remap: { nf: 'nb', c1: 'c' } }),
  diff: base({}),
  markdown: base({}),
  dockerfile: base({ str: 'quote' }),
  ini: base({ remap: { gh: 'k', c1: 'c1' } }),
  scss: base({}),
  matlab: base({ words: words({ k: 'function end if else elseif for while switch case otherwise return break continue' }) }),
};

/** The profile of a highlight.js language (aliases share their base language's lexer habits). */
export function profileOf(hl: string): Profile | undefined {
  return PROFILES[hl] ?? PROFILES[ALIASES[hl] ?? ''];
}

const ALIASES: Record<string, string> = { 'python-repl': 'python', shell: 'bash', pgsql: 'sql', less: 'scss' };
