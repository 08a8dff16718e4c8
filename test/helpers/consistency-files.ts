// Event types covered by the other events-consistency files (test/events-consistency-*.test.ts), each run in its own process.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Reads the compiled sibling files and collects every type named in a checkConsistency `expect`
 * list: those files fail themselves when the event does not come, so naming it there is coverage.
 */
export function typesCoveredInOtherFiles(): Set<string> {
  const dir = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
  const out = new Set<string>();
  for (const f of fs.readdirSync(dir)) {
    if (!/^events-consistency-.+\.test\.js$/.test(f)) continue;
    const text = fs.readFileSync(path.join(dir, f), 'utf8');
    for (const m of text.matchAll(/expect:\s*\[([^\]]*)\]/g)) {
      for (const t of m[1]!.matchAll(/['"]([a-z_]+)['"]/g)) out.add(t[1]!);
    }
  }
  return out;
}
