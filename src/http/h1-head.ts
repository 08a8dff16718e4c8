// Reads the head of an HTTP/1.1 request that the lean connection serves itself; anything unusual is left to Node's parser.

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
 * take (a body larger than the limit, chunked, HTTP/1.0, an upgrade, a repeated header, anything
 * malformed): Node's own HTTP server then gets the connection and answers it as it always has,
 * errors included. Refusing is always safe; accepting must be exactly right.
 */
export type HeadResult = RequestHead | 'incomplete' | 'unsupported';

/** Node's default limit for a request head; a longer one goes to Node, which answers 431. */
export const MAX_HEAD_BYTES = 16 * 1024;

const HEAD_END = Buffer.from('\r\n\r\n');
/** HEAD is not here: its answer carries no body, which Node's server handles. */
const METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
/** Origin-form target: visible ASCII only (no spaces, no controls, no raw UTF-8). */
const REQUEST_LINE = /^([A-Z]+) (\/[!-~]*) HTTP\/1\.1$/;
/** A field name (an RFC 9110 token), a colon, and a value of visible ASCII, spaces and tabs. */
const HEADER_LINE = /^([!#$%&'*+\-.^_`|~0-9A-Za-z]+):[ \t]*([\t -~]*?)[ \t]*$/;
const DIGITS = /^[0-9]{1,10}$/;

export function parseRequestHead(buf: Buffer, maxBodyBytes: number): HeadResult {
  const end = buf.indexOf(HEAD_END);
  if (end < 0) return buf.length > MAX_HEAD_BYTES ? 'unsupported' : 'incomplete';
  if (end + 4 > MAX_HEAD_BYTES) return 'unsupported';
  const lines = buf.toString('latin1', 0, end).split('\r\n');
  const first = REQUEST_LINE.exec(lines[0]);
  if (!first || !METHODS.has(first[1])) return 'unsupported';
  const headers: Record<string, string> = Object.create(null) as Record<string, string>;
  for (let i = 1; i < lines.length; i++) {
    const m = HEADER_LINE.exec(lines[i]);
    if (!m) return 'unsupported';
    const name = m[1].toLowerCase();
    // Node joins or drops repeated fields by name; rather than copy its rules, leave those to it.
    if (name in headers) return 'unsupported';
    headers[name] = m[2];
  }
  // A request without Host is an error Node answers (400); a body framed otherwise than by its
  // length, an expected 100-continue or a protocol switch are its too.
  if (headers.host === undefined || 'transfer-encoding' in headers || 'expect' in headers || 'upgrade' in headers) return 'unsupported';
  let bodyLength = 0;
  const length = headers['content-length'];
  if (length !== undefined) {
    if (!DIGITS.test(length)) return 'unsupported';
    bodyLength = Number(length);
    if (bodyLength > maxBodyBytes) return 'unsupported';
  }
  let close = false;
  const connection = headers.connection;
  if (connection !== undefined) {
    for (const token of connection.toLowerCase().split(',')) {
      const t = token.trim();
      if (t === 'close') close = true;
      else if (t !== 'keep-alive' && t !== '') return 'unsupported';
    }
  }
  return { method: first[1], target: first[2], headers, headLength: end + 4, bodyLength, close };
}
