// JSON text put as it is into an answer: a large list SQL already wrote as JSON is not parsed into objects only to be written again.
import { randomUUID } from 'node:crypto';

/** Stands in for a RawJson in JSON.stringify's output; random per process, so no stored text can imitate it. */
const MARK = `raw-json:${randomUUID()}:`;
const NEEDLE = `"${MARK}`;

/** The texts of the RawJson values met by the stringifyAnswer in progress (null outside one). */
let pending: string[] | null = null;

export class RawJson {
  constructor(readonly text: string) {}

  /** Inside stringifyAnswer, a placeholder string; anywhere else, the value itself (slow, but right). */
  toJSON(): unknown {
    if (!pending) return JSON.parse(this.text);
    pending.push(this.text);
    return MARK + String(pending.length - 1);
  }
}

/** JSON.stringify, with every RawJson's text in its place. */
export function stringifyAnswer(value: unknown): string {
  const outer = pending;
  const parts: string[] = [];
  pending = parts;
  let json: string;
  try {
    json = JSON.stringify(value);
  } finally {
    pending = outer;
  }
  if (!parts.length) return json;
  let out = '';
  let at = 0;
  for (let i = json.indexOf(NEEDLE); i >= 0; i = json.indexOf(NEEDLE, at)) {
    const end = json.indexOf('"', i + NEEDLE.length);
    out += json.slice(at, i) + parts[Number(json.slice(i + NEEDLE.length, end))];
    at = end + 1;
  }
  return out + json.slice(at);
}
