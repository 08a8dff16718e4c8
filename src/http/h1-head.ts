// Reads the head of an HTTP/1.1 or 1.0 request that the lean connection serves itself; anything unusual is left to Node's parser.

/** A request head the lean connection accepts, and where its body lies in the buffer. */
export interface RequestHead {
  method: string;
  /** The request target as sent (origin form: it starts with "/"). */
  target: string;
  /** Lower-cased names; each name appears once. */
  headers: Record<string, string>;
  /** Bytes of the head, blank line included: the body starts here. */
  headLength: number;
  /** Content-Length, 0 without one. */
  bodyLength: number;
  /** The client asked for the connection to close after this request. */
  close: boolean;
}

/**
 * `incomplete`: the head has not arrived whole yet. `unsupported`: a request this parser does not
 * take (a body larger than the limit, chunked, a version other than 1.1 and 1.0, an upgrade, a
 * repeated header, anything malformed): Node's own HTTP server then gets the connection and answers
 * it as it always has, errors included. Refusing is always safe; accepting must be exactly right.
 */
export type HeadResult = RequestHead | 'incomplete' | 'unsupported';

/** Node's default limit for a request head; a longer one goes to Node, which answers 431. */
export const MAX_HEAD_BYTES = 16 * 1024;

const HEAD_END = Buffer.from('\r\n\r\n');
/** HEAD is not here: its answer carries no body, which Node's server handles. Values are the names themselves. */
const METHODS = new Map(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'].map((m) => [m, m]));
/** ' HTTP/1.x' ends the request line; 1.0 is what proxies such as nginx speak to their upstreams by default. */
const VERSION_PREFIX = ' HTTP/1.';
const VERSION_LENGTH = VERSION_PREFIX.length + 1;
/** Character codes allowed in a field name (an RFC 9110 token). */
const TOKEN = new Uint8Array(128);
for (const c of "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") TOKEN[c.charCodeAt(0)] = 1;
const DIGITS = /^[0-9]{1,10}$/;

/** Whether text[from, to) is visible ASCII (what the target and field values may hold; values also tabs and spaces inside). */
function visible(text: string, from: number, to: number, spaces: boolean): boolean {
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c > 0x7e || (c < 0x21 && !(spaces && (c === 0x20 || c === 0x09)))) return false;
  }
  return true;
}

/** Whether text[from, to) is an RFC 9110 token (a field name; also what a response header's name must be). */
export function isToken(text: string, from = 0, to = text.length): boolean {
  if (from === to) return false;
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c > 0x7f || TOKEN[c] === 0) return false;
  }
  return true;
}

/**
 * Whether an incomplete head holds a line feed without its carriage return, or a carriage return
 * followed by anything but a line feed: such a head never ends in CRLF CRLF, and Node's parser
 * answers it 400 at once (waiting for the rest would hold it until the headers timeout).
 */
function strayLineBreak(buf: Buffer): boolean {
  for (let i = buf.indexOf(0x0a); i >= 0; i = buf.indexOf(0x0a, i + 1)) if (i === 0 || buf[i - 1] !== 0x0d) return true;
  for (let i = buf.indexOf(0x0d); i >= 0 && i + 1 < buf.length; i = buf.indexOf(0x0d, i + 1)) if (buf[i + 1] !== 0x0a) return true;
  return false;
}

interface HeadLines {
  method: string;
  target: string;
  http10: boolean;
  headers: Record<string, string>;
}

/**
 * The request line and header lines of text (CRLF-separated, without the blank line), checked as
 * the lean server takes them; null for anything it leaves to Node.
 */
function parseLines(text: string): HeadLines | null {
  let eol = text.indexOf('\r\n');
  if (eol < 0) eol = text.length;
  // Request line: METHOD SP origin-form-target SP HTTP/1.1 (or 1.0)
  const sp = text.indexOf(' ');
  const method = sp > 0 ? METHODS.get(text.slice(0, sp)) : undefined;
  if (method === undefined) return null;
  const targetEnd = eol - VERSION_LENGTH;
  const minor = text.charCodeAt(eol - 1);
  if (targetEnd <= sp + 1 || !text.startsWith(VERSION_PREFIX, targetEnd) || (minor !== 0x30 && minor !== 0x31)) return null;
  if (text.charCodeAt(sp + 1) !== 0x2f || !visible(text, sp + 1, targetEnd, false)) return null;
  const http10 = minor === 0x30;
  const target = text.slice(sp + 1, targetEnd);
  // A plain object, not a null-prototype one: V8 keeps those as dictionaries, several times the
  // size, and a held long-poll keeps its request's headers. Hence the own-property checks below.
  const headers: Record<string, string> = {};
  let pos = eol + 2;
  while (pos < text.length) {
    let lineEnd = text.indexOf('\r\n', pos);
    if (lineEnd < 0) lineEnd = text.length;
    const colon = text.indexOf(':', pos);
    if (colon < 0 || colon > lineEnd || !isToken(text, pos, colon)) return null;
    let from = colon + 1;
    let to = lineEnd;
    while (from < to && (text.charCodeAt(from) === 0x20 || text.charCodeAt(from) === 0x09)) from++;
    while (to > from && (text.charCodeAt(to - 1) === 0x20 || text.charCodeAt(to - 1) === 0x09)) to--;
    if (!visible(text, from, to, true)) return null;
    const name = text.slice(pos, colon).toLowerCase();
    // Node joins or drops repeated fields by name; rather than copy its rules, leave those to it
    // (and a field named like the prototype, which a plain object cannot hold). Own properties
    // only: "constructor" is an ordinary field. The names read below are none of Object's.
    if (Object.hasOwn(headers, name) || name === '__proto__') return null;
    headers[name] = text.slice(from, to);
    pos = lineEnd + 2;
  }
  return { method, target, http10, headers };
}

/**
 * The body length and whether to close after the answer, from headers the lean server takes; null
 * for framing it leaves to Node: a body framed otherwise than by its length, an expected
 * 100-continue, a protocol switch, an odd Content-Length or Connection.
 */
function framingOf(headers: Record<string, string>, http10: boolean, maxBodyBytes: number): { bodyLength: number; close: boolean } | null {
  if (headers['transfer-encoding'] !== undefined || headers.expect !== undefined || headers.upgrade !== undefined) return null;
  let bodyLength = 0;
  const length = headers['content-length'];
  if (length !== undefined) {
    if (!DIGITS.test(length)) return null;
    bodyLength = Number(length);
    if (bodyLength > maxBodyBytes) return null;
  }
  // HTTP/1.1 keeps the connection unless told to close; HTTP/1.0 closes it unless told to keep it.
  let closeAsked = false;
  let keepAsked = false;
  const connection = headers.connection;
  if (connection !== undefined) {
    for (const token of connection.toLowerCase().split(',')) {
      const t = token.trim();
      if (t === 'close') closeAsked = true;
      else if (t === 'keep-alive') keepAsked = true;
      else if (t !== '') return null;
    }
  }
  return { bodyLength, close: closeAsked || (http10 && !keepAsked) };
}

/** The longest method name the lean server takes. */
const LONGEST_METHOD = Math.max(...[...METHODS.keys()].map((m) => m.length));

/**
 * Whether a head that has not arrived whole may still be one the lean server takes. Its complete
 * lines are checked now: Node's parser refuses a bad request line or header as soon as it sees
 * it, and a request it refuses must not wait here for a blank line that may never come.
 */
function mayBecomeLean(buf: Buffer): boolean {
  if (strayLineBreak(buf)) return false;
  const text = buf.toString('latin1');
  const lastLine = text.lastIndexOf('\r\n');
  if (lastLine >= 0) {
    // The fields so far, checked as the whole head's will be (the body limit is checked then).
    const lines = parseLines(text.slice(0, lastLine));
    return lines !== null && framingOf(lines.headers, lines.http10, Infinity) !== null && fieldMayBecomeLean(text, lastLine + 2);
  }
  // Not even the request line yet: its method so far must begin one taken here, and the rest of
  // the line hold only what a target and version can.
  const sp = text.indexOf(' ');
  const method = sp < 0 ? text : text.slice(0, sp);
  if (method.length > LONGEST_METHOD) return false;
  if (sp >= 0 && !visible(text, sp + 1, lineBodyEnd(text), true)) return false;
  for (const m of METHODS.keys()) if (m.startsWith(method) && (sp < 0 || m === method)) return true;
  return false;
}

/** Where a line that has not ended stops, a trailing carriage return (whose line feed may follow) left out. */
function lineBodyEnd(text: string): number {
  return text.endsWith('\r') ? text.length - 1 : text.length;
}

/**
 * Whether the header line still arriving at text[from..] may become one the lean server takes:
 * Node's parser refuses a bad byte in a field name or value as soon as it reads it.
 */
function fieldMayBecomeLean(text: string, from: number): boolean {
  const end = lineBodyEnd(text);
  // Nothing yet, or the carriage return that may begin the blank line.
  if (end <= from) return true;
  const colon = text.indexOf(':', from);
  // A name without its colon is fine only while the line goes on.
  if (colon < 0) return end === text.length && isToken(text, from, end);
  return isToken(text, from, colon) && visible(text, colon + 1, end, true);
}

/** Scanned by hand rather than split into lines and matched: a long-poll arrives thousands of times a second. */
export function parseRequestHead(buf: Buffer, maxBodyBytes: number): HeadResult {
  const end = buf.indexOf(HEAD_END);
  if (end < 0) return buf.length > MAX_HEAD_BYTES || !mayBecomeLean(buf) ? 'unsupported' : 'incomplete';
  if (end + 4 > MAX_HEAD_BYTES) return 'unsupported';
  const lines = parseLines(buf.toString('latin1', 0, end));
  if (lines === null) return 'unsupported';
  const { method, target, http10, headers } = lines;
  // A request without Host is an error Node answers (400).
  if (headers.host === undefined) return 'unsupported';
  const framing = framingOf(headers, http10, maxBodyBytes);
  if (framing === null) return 'unsupported';
  const { bodyLength, close } = framing;
  return { method, target, headers, headLength: end + 4, bodyLength, close };
}
