// <time:…> mentions: a UNIX timestamp, ISO 8601, or a loose English date ("Jun 5th 2017, 10:30PM", "31 Dec 2017 5:30 am IST").
import type { MarkdownIt, StateInline, Token } from 'markdown-it';

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

/** Common zone abbreviations → offset in minutes east of UTC; IANA names are not accepted here. */
const ZONES: Record<string, number> = {
  utc: 0, gmt: 0, z: 0, ut: 0, wet: 0, bst: 60, cet: 60, cest: 120, eet: 120, eest: 180, msk: 180, ist: 330,
  pkt: 300, sgt: 480, hkt: 480, cst: -360, cdt: -300, est: -300, edt: -240, mst: -420, mdt: -360, pst: -480,
  pdt: -420, akst: -540, akdt: -480, hst: -600, jst: 540, kst: 540, aest: 600, aedt: 660, acst: 570, awst: 480, nzst: 720, nzdt: 780,
};

const MAX_SECONDS = 8.64e12; // the range of a JavaScript Date

/** Seconds since the epoch, or null when the text is not a time this parser understands. */
export function parseTime(input: string): number | null {
  const text = input.trim();
  if (/^-?\d+(\.\d+)?$/.test(text)) {
    const n = Number(text);
    return Math.abs(n) <= MAX_SECONDS && Number.isFinite(new Date(n * 1000).getTime()) && n < 253402300800 ? Math.floor(n) : null;
  }
  const iso = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{1,2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?)?\s*(Z|[+-]\d{2}:?\d{2})?$/i.exec(text);
  if (iso) {
    const [, y, mo, d, h = '0', mi = '0', s = '0', tz] = iso;
    return build(+y, +mo - 1, +d, +h, +mi, +s, tz ? zoneOffset(tz) : 0);
  }
  return parseLoose(text);
}

function zoneOffset(tz: string): number | null {
  if (/^z$/i.test(tz)) return 0;
  const m = /^([+-])(\d{2}):?(\d{2})$/.exec(tz);
  if (m) return (m[1] === '-' ? -1 : 1) * (+m[2] * 60 + +m[3]);
  return ZONES[tz.toLowerCase()] ?? null;
}

function build(y: number, mo: number, d: number, h: number, mi: number, s: number, offset: number | null): number | null {
  if (offset === null || mo < 0 || mo > 11 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 59) return null;
  const ms = Date.UTC(y, mo, d, h, mi, s);
  if (new Date(ms).getUTCDate() !== d) return null;
  return ms / 1000 - offset * 60;
}

/** Month name, day (with an optional ordinal suffix) and year in either order, then an optional time and zone. */
function parseLoose(text: string): number | null {
  const words = text.toLowerCase().replace(/,/g, ' ').split(/\s+/).filter(Boolean);
  let year: number | null = null;
  let month: number | null = null;
  let day: number | null = null;
  let hour = 0;
  let minute = 0;
  let second = 0;
  let offset: number | null = 0;
  for (let i = 0; i < words.length; i++) {
    const w = words[i];
    const time = /^(\d{1,2}):(\d{2})(?::(\d{2}))?(am|pm)?$/.exec(w);
    const monthIdx = MONTHS.indexOf(w.slice(0, 3));
    if (time) {
      [hour, minute, second] = [+time[1], +time[2], +(time[3] ?? 0)];
      const ampm = time[4] ?? (/^(am|pm)$/.test(words[i + 1] ?? '') ? words[++i] : undefined);
      if (ampm) {
        if (hour < 1 || hour > 12) return null;
        hour = (hour % 12) + (ampm === 'pm' ? 12 : 0);
      }
    } else if (monthIdx >= 0 && /^[a-z]+\.?$/.test(w) && month === null) month = monthIdx;
    else if (/^\d{4}$/.test(w) && year === null) year = +w;
    else if (/^\d{1,2}(st|nd|rd|th)?$/.test(w) && day === null) day = parseInt(w, 10);
    else if (zoneOffset(w) !== null && i === words.length - 1) offset = zoneOffset(w);
    else return null;
  }
  if (year === null || month === null || day === null) return null;
  return build(year, month, day, hour, minute, second, offset);
}

export function isoTime(seconds: number): string {
  return new Date(seconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function timeRule(state: StateInline, silent: boolean): boolean {
  if (state.src.charCodeAt(state.pos) !== 0x3c /* < */) return false;
  const m = /^<time:([^>]*)>/.exec(state.src.slice(state.pos, state.posMax));
  if (!m) return false;
  if (!silent) state.push('time_mention', 'time', 0).content = m[1];
  state.pos += m[0].length;
  return true;
}

export const timePlugin = (md: MarkdownIt): void => {
  md.inline.ruler.before('autolink', 'time_mention', timeRule);
  md.renderer.rules.time_mention = (tokens: Token[], idx: number) => {
    const text = tokens[idx].content;
    const t = parseTime(text);
    const esc = md.utils.escapeHtml;
    return t === null ? `<span class="timestamp-error">Invalid time format: ${esc(text)}</span>` : `<time datetime="${isoTime(t)}">${esc(text)}</time>`;
  };
};
