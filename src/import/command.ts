// `parley import --format zulip|slack|mattermost PATH [--subdomain S] [--name N] [--team T]`: reads, writes, reports counts.
import type { AppContext } from '../context.js';
import { realmUrl } from '../lib/state/realm.js';
import { ImportError, type ImportBundle } from './bundle.js';
import { openSource } from './source.js';
import { readSlack } from './slack.js';
import { readMattermost } from './mattermost.js';
import { readZulipExport } from './zulip.js';
import { importBundle, type ImportCounts } from './write.js';

export const IMPORT_FORMATS = ['zulip', 'slack', 'mattermost'] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];

/** Reads an export of the given format from an unpacked directory. */
export function readExport(format: ImportFormat, dir: string, team?: string): Promise<ImportBundle> {
  if (format === 'slack') return readSlack(dir);
  if (format === 'mattermost') return readMattermost(dir, team);
  return readZulipExport(dir);
}

export interface ImportRequest {
  format: string;
  path: string;
  subdomain?: string;
  name?: string;
  team?: string;
  progress?: (done: number, total: number) => void;
}

/** The whole import: unpack, read, write in one transaction; the unpacked copy is removed either way. */
export async function runImport(app: AppContext, req: ImportRequest): Promise<ImportCounts & { realm_url: string }> {
  if (!(IMPORT_FORMATS as readonly string[]).includes(req.format)) throw new ImportError(`--format must be one of ${IMPORT_FORMATS.join(', ')}`);
  const source = await openSource(req.path);
  try {
    const bundle = await readExport(req.format as ImportFormat, source.dir, req.team);
    const counts = await importBundle(app, bundle, { subdomain: req.subdomain, name: req.name, progress: req.progress });
    return { ...counts, realm_url: realmUrl(app.config.externalUrl, counts.subdomain) };
  } finally {
    await source.close();
  }
}

/** A one-line progress bar on stderr, only when stderr is a terminal. */
export function terminalProgress(label: string): ((done: number, total: number) => void) | undefined {
  if (!process.stderr.isTTY) return undefined;
  let lastDrawn = -1;
  return (done, total) => {
    const pct = total ? Math.floor((done / total) * 100) : 100;
    if (pct === lastDrawn && done !== total) return;
    lastDrawn = pct;
    const width = 30;
    const filled = Math.round((pct / 100) * width);
    process.stderr.write(`\r${label} [${'#'.repeat(filled)}${' '.repeat(width - filled)}] ${done}/${total}${done === total ? '\n' : ''}`);
  };
}
