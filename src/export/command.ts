// `parley export [--realm S] PATH`: writes one organization in the original's export format (a directory, or a .tar.gz).
import path from 'node:path';
import type { AppContext } from '../context.js';
import { exportRealm, type ExportCounts } from './zulip-export.js';
import { writeExportArchive } from './archive.js';

/** Exports the organization with this subdomain to `target` (a directory, or an archive when it ends in .tar.gz). */
export async function runExport(app: AppContext, subdomain: string, target: string): Promise<ExportCounts & { realm_id: number; path: string }> {
  const realm = await app.store.db.selectFrom('realms').selectAll().where('string_id', '=', subdomain).executeTakeFirst();
  if (!realm) throw new Error(`no organization with subdomain "${subdomain}"`);
  // One consistent snapshot: messages sent meanwhile are either all in the export or not at all.
  const counts = /\.(tar\.gz|tgz)$/i.test(target)
    ? await writeExportArchive(app.store, app.files, realm, target, { kind: 'all' })
    : await app.store.read((tx) => exportRealm(tx, realm, target, app.files));
  return { realm_id: realm.id, path: path.resolve(target), ...counts };
}
