// Data exports through the API: POST /export/realm starts one (written after the answer, in the original's
// format, as a .tar.gz kept in app.files under exports/), DELETE removes it; every change sends realm_export to administrators.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { AppContext } from '../context.js';
import type { Realm, User } from '../store/schema.js';
import type { Tx } from '../store/store.js';
import { ApiError, badRequest } from '../core/api-error.js';
import { publishCommitted, to } from '../events/publish.js';
import { isAdminRole } from '../models/roles.js';
import { realmUrl } from '../lib/state/realm.js';
import { writeExportArchive } from '../export/archive.js';
import { exportFileKey } from '../lib/storage/keys.js';
import { adminRequired } from './settings.js';

export const EXPORT_TYPES = ['public', 'full_with_consent', 'full_without_consent'] as const;
export type ExportType = (typeof EXPORT_TYPES)[number];

type ExportRow = { id: number; acting_user_id: number; export_type: string; export_time: number; pending: number; failed_time: number | null; deleted_time: number | null; file_key: string | null };

/** The RealmExport object of the API. */
export function presentExport(app: AppContext, realm: Realm, r: ExportRow): Record<string, unknown> {
  return {
    id: r.id,
    export_time: r.export_time,
    acting_user_id: r.acting_user_id,
    export_url: r.file_key && r.deleted_time === null ? `${realmUrl(app.config.externalUrl, realm.string_id)}/user_uploads/exports/${r.file_key}` : null,
    deleted_timestamp: r.deleted_time,
    failed_timestamp: r.failed_time,
    pending: r.pending === 1,
    export_type: r.export_type,
  };
}

export async function realmExports(app: AppContext, tx: Tx, realm: Realm): Promise<Record<string, unknown>[]> {
  const rows = await tx.selectFrom('realm_exports').selectAll().where('realm_id', '=', realm.id).orderBy('id').execute();
  return rows.map((r) => presentExport(app, realm, r));
}

async function administrators(tx: Tx, realmId: number): Promise<number[]> {
  return (await tx.selectFrom('users').select('id').where('realm_id', '=', realmId).where('is_active', '=', 1).where('is_bot', '=', 0).where('role', '<=', 200).execute()).map((r) => r.id);
}

/** Commits `change` and tells every administrator the new list of exports. */
async function changeExports<T>(app: AppContext, realm: Realm, change: (tx: Tx) => Promise<T>): Promise<T> {
  const { result, stamp } = await app.store.write(async (tx) => {
    const r = await change(tx);
    return { r, admins: await administrators(tx, realm.id), exports: await realmExports(app, tx, realm) };
  });
  publishCommitted(app, realm.id, stamp, [to(result.admins, { type: 'realm_export', exports: result.exports })]);
  return result.r;
}

export async function doStartRealmExport(app: AppContext, realm: Realm, user: User, exportType: ExportType): Promise<number> {
  if (!isAdminRole(user.role)) throw adminRequired();
  // The original allows it only with owner_full_content_access, a feature Parley does not have.
  if (exportType === 'full_without_consent') throw badRequest('Exports without member consent are not enabled on this server.');
  const id = await changeExports(app, realm, async (tx) => {
    const row = await tx
      .insertInto('realm_exports')
      .values({ realm_id: realm.id, acting_user_id: user.id, export_type: exportType, export_time: app.clock.now(), failed_time: null, deleted_time: null, file_key: null })
      .returning('id')
      .executeTakeFirstOrThrow();
    return row.id;
  });
  // Written after the answer: an export of a large organization takes a while.
  setImmediate(() => void writeApiExport(app, realm, id, exportType));
  return id;
}

async function writeApiExport(app: AppContext, realm: Realm, id: number, exportType: ExportType): Promise<void> {
  const fileKey = `${realm.id}/${randomBytes(18).toString('base64url')}/parley-export-${realm.string_id || 'realm'}-${id}.tar.gz`;
  // The archive is built in a temporary directory, then stored where every node can serve it.
  const tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'parley-api-export-'));
  const file = path.join(tmp, 'export.tar.gz');
  try {
    const users = await app.store.db.selectFrom('users').select(['id', 'settings']).where('realm_id', '=', realm.id).execute();
    const consented = new Set(users.filter((u) => (JSON.parse(u.settings) as { allow_private_data_export?: boolean }).allow_private_data_export === true).map((u) => u.id));
    await writeExportArchive(app.store, app.files, realm, file, exportType === 'public' ? { kind: 'public' } : { kind: 'consented', userIds: consented });
    await app.files.put(exportFileKey(fileKey), await fs.readFile(file), 'application/gzip');
    await fs.rm(tmp, { recursive: true, force: true });
    await changeExports(app, realm, (tx) => tx.updateTable('realm_exports').set({ pending: 0, file_key: fileKey }).where('id', '=', id).execute());
  } catch (err) {
    await fs.rm(tmp, { recursive: true, force: true });
    await app.files.delete(exportFileKey(fileKey)).catch(() => {});
    process.stderr.write(`export ${id} of organization ${realm.id} failed: ${err instanceof Error ? err.message : String(err)}\n`);
    await changeExports(app, realm, (tx) => tx.updateTable('realm_exports').set({ pending: 0, failed_time: app.clock.now() }).where('id', '=', id).execute()).catch(() => {});
  }
}

export async function doDeleteRealmExport(app: AppContext, realm: Realm, user: User, id: number): Promise<void> {
  if (!isAdminRole(user.role)) throw adminRequired();
  const fileKey = await changeExports(app, realm, async (tx) => {
    const row = await tx.selectFrom('realm_exports').selectAll().where('id', '=', id).where('realm_id', '=', realm.id).executeTakeFirst();
    if (!row) throw new ApiError('Invalid data export ID', 'BAD_REQUEST', 400);
    if (row.deleted_time !== null) throw badRequest('Export already deleted');
    if (row.pending) throw badRequest('Export still in progress');
    if (row.failed_time !== null) throw badRequest('Export failed, nothing to delete');
    await tx.updateTable('realm_exports').set({ deleted_time: app.clock.now() }).where('id', '=', id).execute();
    return row.file_key;
  });
  if (fileKey) await app.files.delete(exportFileKey(fileKey));
}
