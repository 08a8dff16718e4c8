// JSON text made ahead of the answer (register's largest fields), put into the answer as it is rather than parsed and written again.

/**
 * A value already written as JSON text. Written as it is by stringifyWithJsonText when it is a
 * top-level field of an object marked by withJsonText; anywhere else JSON.stringify still gives the
 * same answer through toJSON (slowly, by parsing it).
 */
export class JsonText {
  private decoded: string | null;

  /**
   * `text`, or null with `bytes`: the text in UTF-8, for a cached text put into many answers: the
   * answer is then put together from bytes, and the megabytes of a large list are copied, not
   * encoded again.
   */
  constructor(
    text: string | null,
    readonly bytes: Buffer | null = null,
  ) {
    this.decoded = text;
  }

  /** A JSON text kept as UTF-8 only. */
  static fromBytes(bytes: Buffer): JsonText {
    return new JsonText(null, bytes);
  }

  get text(): string {
    return (this.decoded ??= this.bytes!.toString('utf8'));
  }

  toJSON(): unknown {
    return JSON.parse(this.text);
  }
}

/** Marks an object some of whose top-level values are JsonText (a symbol: JSON.stringify skips it, spreading copies it). */
export const HAS_JSON_TEXT: unique symbol = Symbol('hasJsonText');

export function withJsonText<T extends object>(obj: T): T {
  (obj as Record<symbol, unknown>)[HAS_JSON_TEXT] = true;
  return obj;
}

export function hasJsonText(obj: object): boolean {
  return (obj as Record<symbol, unknown>)[HAS_JSON_TEXT] === true;
}

/** JSON.stringify(obj) for a plain object, with its top-level JsonText values written as they are. */
export function stringifyWithJsonText(obj: Record<string, unknown>): string {
  let out = '{';
  for (const key of Object.keys(obj)) {
    const v = obj[key];
    const text = v instanceof JsonText ? v.text : JSON.stringify(v);
    // JSON.stringify leaves out undefined, functions and symbols.
    if (text === undefined) continue;
    if (out.length > 1) out += ',';
    out += JSON.stringify(key) + ':' + text;
  }
  return out + '}';
}

/** Pieces of at least this many bytes are copied as they are; smaller answers stay text. */
const MIN_BYTES_PIECE = 64 * 1024;

/**
 * stringifyWithJsonText's answer, as UTF-8 bytes when a large top-level value has its bytes kept
 * (the rest is encoded once, the kept bytes only copied), else as text.
 */
export function serializeWithJsonText(obj: Record<string, unknown>): string | Buffer {
  let large = false;
  for (const key of Object.keys(obj)) {
    const v = obj[key];
    if (v instanceof JsonText && v.bytes && v.bytes.length >= MIN_BYTES_PIECE) large = true;
  }
  if (!large) return stringifyWithJsonText(obj);
  const pieces: Buffer[] = [];
  let text = '{';
  for (const key of Object.keys(obj)) {
    const v = obj[key];
    const bytes = v instanceof JsonText && v.bytes && v.bytes.length >= MIN_BYTES_PIECE ? v.bytes : null;
    const value = bytes ? '' : v instanceof JsonText ? v.text : JSON.stringify(v);
    if (value === undefined) continue;
    if (text.length > 1 || pieces.length) text += ',';
    text += JSON.stringify(key) + ':' + value;
    if (bytes) {
      pieces.push(Buffer.from(text), bytes);
      text = '';
    }
  }
  pieces.push(Buffer.from(text + '}'));
  return Buffer.concat(pieces);
}
