// `parley export [--realm S] PATH`: writes one organization in the original's export format (a directory, or a .tar.gz).
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import * as tar from 'tar';
import type { AppContext } from '../context.js';
import { exportRealm, type ExportCounts } from './zulip-export.js';

/** Exports the organization with this subdomain to `target` (a directory, or an archive when it ends in .tar.gz). */
export async function runExport(app: AppContext, subdomain: string, target: string): Promise<ExportCounts & { realm_id: number; path: string }> {
  const realm = await app.store.db.selectFrom('realms').selectAll().where('string_id', '=', subdomain).executeTakeFirst();
  if (!realm) throw new Error(`no organization with subdomain "${subdomain}"`);
  const archive = /\.(tar\.gz|tgz)$/i.test(target);
  const dir = archive ? await fs.mkdtemp(path.join(os.tmpdir(), 'parley-export-')) : target;
  try {
    // One consistent snapshot: messages sent meanwhile are either all in the export or not at all.
    const counts = await app.store.read((tx) => exportRealm(tx, realm, archive ? path.join(dir, `parley-export-${realm.string_id || 'realm'}`) : dir, app.config.dataDir));
    if (archive) await tar.c({ gzip: true, file: target, cwd: dir }, await fs.readdir(dir));
    return { realm_id: realm.id, path: path.resolve(target), ...counts };
  } finally {
    if (archive) await fs.rm(dir, { recursive: true, force: true });
  }
}

export async function exportCommand(app: AppContext, flags: Record<string, string>, positional: string[]): Promise<object> {
  if (positional.length !== 1) throw new Error('usage: parley export [--realm SUBDOMAIN] PATH');
  const subdomain = flags.realm === undefined || flags.realm === '""' ? '' : flags.realm;
  return runExport(app, subdomain, positional[0]);
}
