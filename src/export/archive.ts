// An organization's export written as one .tar.gz (the form the original ships and imports), through a temporary directory.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import * as tar from 'tar';
import type { Store } from '../store/store.js';
import type { Realm } from '../store/schema.js';
import type { FileStorage } from '../lib/storage/index.js';
import { exportRealm, type ExportCounts, type ExportScope } from './zulip-export.js';

/** Writes `target` (a .tar.gz holding one folder, as the original's exports do) from one consistent read. */
export async function writeExportArchive(store: Store, files: FileStorage, realm: Realm, target: string, scope: ExportScope): Promise<ExportCounts> {
  const tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'parley-export-'));
  try {
    const folder = `parley-export-${realm.string_id || 'realm'}`;
    const counts = await store.read((tx) => exportRealm(tx, realm, path.join(tmp, folder), files, scope));
    await fs.mkdir(path.dirname(target), { recursive: true });
    await tar.c({ gzip: true, file: target, cwd: tmp }, [folder]);
    return counts;
  } finally {
    await fs.rm(tmp, { recursive: true, force: true });
  }
}
