// JSON text made ahead of the answer (register's largest fields), put into the answer as it is rather than parsed and written again.

/**
 * A value already written as JSON text. Written as it is by stringifyWithJsonText when it is a
 * top-level field of an object marked by withJsonText; anywhere else JSON.stringify still gives the
 * same answer through toJSON (slowly, by parsing it).
 */
export class JsonText {
  constructor(readonly text: string) {}

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
