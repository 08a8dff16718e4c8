// Bare URLs and e-mail addresses in text become links, with the original's boundaries: known TLDs only,
// balanced parentheses (six deep at most), trailing punctuation left out, nothing glued to other text.
import type { StateCore } from 'markdown-it';
import { linkTextMatches } from './text-links.js';

// Two-letter country TLDs, except .md and .py, which are far more often file names.
const CC =
  'ac ad ae af ag ai al am ao aq ar as at au aw ax az ba bb bd be bf bg bh bi bj bm bn bo br bs bt bw by bz ca cc cd cf cg ch ci ck cl cm cn co cr cu cv cw cx cy cz de dj dk dm do dz ec ee eg er es et eu fi fj fk fm fo fr ga gb gd ge gf gg gh gi gl gm gn gp gq gr gs gt gu gw gy hk hm hn hr ht hu id ie il im in io iq ir is it je jm jo jp ke kg kh ki km kn kp kr kw ky kz la lb lc li lk lr ls lt lu lv ly ma mc me mg mh mk ml mm mn mo mp mq mr ms mt mu mv mw mx my mz na nc ne nf ng ni nl no np nr nu nz om pa pe pf pg ph pk pl pm pn pr ps pt pw qa re ro rs ru rw sa sb sc sd se sg sh si sk sl sm sn so sr ss st su sv sx sy sz tc td tf tg th tj tk tl tm tn to tr tt tv tw tz ua ug uk us uy uz va vc ve vg vi vn vu wf ws ye yt za zm zw';
const GENERIC =
  'com net org edu gov mil int info biz name pro aero asia cat coop jobs mobi museum tel travel xxx app dev ai blog cloud page site online store tech xyz club shop wiki news live email chat social space today world zone';
const TLDS = new Set([...CC.split(' '), ...GENERIC.split(' ')]);

/** Characters a link may follow: the start, whitespace, or opening punctuation. */
const BEFORE = /[\s([{"'<,:;!?*~]/;
/** Characters that may trail a link without being part of it. */
const TRAILING = /[.,:;!?'"*)\]}>]/;
const MAX_PAREN_DEPTH = 6;

const SCHEME_URL = /^(?:https?|ftp):\/\/[^\s<>]+/i;
const EMAIL = /^[\w.+-]+@((?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+([a-z]{2,}))/i;
const DOMAIN = /^((?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+([a-z]{2,}))(?::\d{1,5})?(?:[/?#][^\s<>]*)?/i;

function depthOk(url: string): boolean {
  let depth = 0;
  for (const c of url) {
    if (c === '(' && ++depth > MAX_PAREN_DEPTH) return false;
    if (c === ')') depth--;
  }
  return true;
}

/** Drops trailing punctuation, and closing brackets that have no opening one inside the URL. */
function trimTrailing(url: string): string {
  for (;;) {
    const last = url[url.length - 1];
    if (!last || !TRAILING.test(last)) return url;
    const pairs: Record<string, string> = { ')': '(', ']': '[', '}': '{' };
    if (pairs[last] && url.split(pairs[last]).length > url.split(last).length - 1) return url;
    url = url.slice(0, -1);
  }
}

export interface UrlMatch {
  start: number;
  end: number;
  text: string;
  href: string;
}

/** The link starting at `pos`, if one does and nothing but trailing punctuation glues it to what follows. */
function matchAt(text: string, pos: number): UrlMatch | null {
  const rest = text.slice(pos);
  let raw: string | null = null;
  let href = '';
  const scheme = SCHEME_URL.exec(rest);
  const email = scheme ? null : EMAIL.exec(rest);
  const domain = scheme || email ? null : DOMAIN.exec(rest);
  if (scheme) raw = trimTrailing(scheme[0]);
  else if (email && TLDS.has(email[2].toLowerCase())) {
    raw = email[0];
    href = 'mailto:' + raw;
  } else if (domain && TLDS.has(domain[2].toLowerCase())) raw = trimTrailing(domain[0]);
  if (!raw || !depthOk(raw)) return null;
  // What follows must be trailing punctuation up to whitespace or the end of the text.
  let end = pos + raw.length;
  while (end < text.length && TRAILING.test(text[end])) end++;
  if (end < text.length && !/\s/.test(text[end])) return null;
  return { start: pos, end: pos + raw.length, text: raw, href: href || (scheme ? raw : 'http://' + raw) };
}

/** Every bare link in a text, left to right. */
export function findUrls(text: string): UrlMatch[] {
  const out: UrlMatch[] = [];
  for (let pos = 0; pos < text.length; pos++) {
    if (pos > 0 && !BEFORE.test(text[pos - 1])) continue;
    if (!/[a-z0-9]/i.test(text[pos])) continue;
    const m = matchAt(text, pos);
    if (m) {
      out.push(m);
      pos = m.end - 1;
    }
  }
  return out;
}

/** Core rule: splits text tokens outside links at bare URLs. */
export function autolink(state: StateCore): void {
  const validate = state.md.validateLink;
  linkTextMatches(state, (text) => findUrls(text).filter((m) => validate(m.href)), 'linkify');
}
