// The Unicode emoji name table from the emoji-datasource package, read on first use and kept compact.
import fs from 'node:fs';
import { createRequire } from 'node:module';

interface SourceEntry {
  unified: string;
  non_qualified: string | null;
  short_name: string;
  short_names: string[];
}

interface Tables {
  /** Any accepted name → dash-separated lowercase hex code points. */
  nameToCode: Map<string, string>;
  /** Code → the canonical name (the source's primary short name). */
  codeToName: Map<string, string>;
}

let tables: Tables | null = null;

/**
 * Built when a reaction first needs it, not at start-up. The 1.3 MB source is parsed with
 * JSON.parse rather than require(), which would keep every entry (images, categories…) in the
 * module cache for good; only the two maps stay.
 */
function load(): Tables {
  if (tables) return tables;
  const file = createRequire(import.meta.url).resolve('emoji-datasource/emoji.json');
  const entries = JSON.parse(fs.readFileSync(file, 'utf8')) as SourceEntry[];
  const nameToCode = new Map<string, string>();
  const codeToName = new Map<string, string>();
  for (const e of entries) {
    const code = e.unified.toLowerCase();
    codeToName.set(code, e.short_name);
    // Clients may send the code without the variation selector (non-qualified form).
    if (e.non_qualified) codeToName.set(e.non_qualified.toLowerCase(), e.short_name);
    for (const n of e.short_names) if (!nameToCode.has(n)) nameToCode.set(n, code);
  }
  return (tables = { nameToCode, codeToName });
}

/** The code of a Unicode emoji name, or undefined. */
export function unicodeCodeOfName(name: string): string | undefined {
  return load().nameToCode.get(name);
}

/** Whether this is the code of a Unicode emoji (fully or non-qualified). */
export function isUnicodeCode(code: string): boolean {
  return load().codeToName.has(code);
}

/** The name of a unicode emoji by its code (dash-separated lowercase hex codepoints). */
export function unicodeNameOfCode(code: string): string | undefined {
  return load().codeToName.get(code);
}
