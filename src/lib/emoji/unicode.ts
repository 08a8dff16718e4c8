// The Unicode emoji name table (names.json, the original's names for compatibility), read on first use.
import { createHash } from 'node:crypto';
import fs from 'node:fs';

/**
 * The data file, kept in the source tree: the compiled module sits at dist/src/lib/emoji/, so the
 * path climbs to the package root. The file is also what clients download (`server_emoji_data_url`):
 * `{"code_to_names": {code: [canonical name, ...aliases]}}`, codes as dash-separated lowercase hex
 * without variation selectors.
 */
const DATA_FILE = new URL('../../../../src/lib/emoji/names.json', import.meta.url);

/** Where clients fetch the table (a static path, outside /api/v1); the register state adds `?v=` with the content hash. */
export const EMOJI_DATA_PATH = 'static/generated/emoji/emoji_api.json';

interface Tables {
  /** Any accepted name → code. */
  nameToCode: Map<string, string>;
  /** Code → the canonical name. */
  codeToName: Map<string, string>;
}

let tables: Tables | null = null;
let dataFile: { body: Buffer; hash: string } | null = null;

/** Built when a reaction or a rendering first needs it, not at start-up; only the two maps stay. */
function load(): Tables {
  if (tables) return tables;
  const { code_to_names } = JSON.parse(fs.readFileSync(DATA_FILE, 'utf8')) as { code_to_names: Record<string, string[]> };
  const nameToCode = new Map<string, string>();
  const codeToName = new Map<string, string>();
  for (const [code, names] of Object.entries(code_to_names)) {
    codeToName.set(code, names[0]);
    for (const n of names) nameToCode.set(n, code);
  }
  return (tables = { nameToCode, codeToName });
}

/** The code of a Unicode emoji name, or undefined. */
export function unicodeCodeOfName(name: string): string | undefined {
  return load().nameToCode.get(name);
}

/** Whether this is the code of a Unicode emoji the server accepts (no variation selectors). */
export function isUnicodeCode(code: string): boolean {
  return load().codeToName.has(code);
}

/** The canonical name of a Unicode emoji by its code. */
export function unicodeNameOfCode(code: string): string | undefined {
  return load().codeToName.get(code);
}

/** The file as served to clients, and a short hash of it for URLs and ETags. */
export function emojiDataFile(): { body: Buffer; hash: string } {
  if (dataFile) return dataFile;
  const body = fs.readFileSync(DATA_FILE);
  return (dataFile = { body, hash: createHash('sha256').update(body).digest('hex').slice(0, 16) });
}
