// The Unicode emoji name table, read once at start-up from the emoji-datasource package.
import { createRequire } from 'node:module';

interface SourceEntry {
  unified: string;
  non_qualified: string | null;
  short_name: string;
  short_names: string[];
}

const require = createRequire(import.meta.url);
const entries = require('emoji-datasource/emoji.json') as SourceEntry[];

/** Any accepted name → dash-separated lowercase hex code points. */
export const UNICODE_NAME_TO_CODE = new Map<string, string>();
/** Code → the canonical name (the source's primary short name). */
export const UNICODE_CODE_TO_NAME = new Map<string, string>();

for (const e of entries) {
  const code = e.unified.toLowerCase();
  UNICODE_CODE_TO_NAME.set(code, e.short_name);
  // Clients may send the code without the variation selector (non-qualified form).
  if (e.non_qualified) UNICODE_CODE_TO_NAME.set(e.non_qualified.toLowerCase(), e.short_name);
  for (const n of e.short_names) if (!UNICODE_NAME_TO_CODE.has(n)) UNICODE_NAME_TO_CODE.set(n, code);
}
