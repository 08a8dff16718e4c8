// Data exports: GET and POST /export/realm, DELETE /export/realm/{export_id}, GET /export/realm/consents,
// and the export files at /user_uploads/exports/{realm_id}/{secret}/{file} (administrators only).
import fs from 'node:fs/promises';
import path from 'node:path';
import type { RouteList } from '../http/router.js';
import { authed } from '../http/handlers.js';
import { badRequest, notFound } from '../core/api-error.js';
import { NON_API_ROUTE } from '../http/router.js';
import { RawResponse } from '../core/results.js';
import { isAdminRole } from '../models/roles.js';
import { exportConsents, exportFileIsLive } from '../lib/realm-exports.js';
import { adminRequired } from '../actions/settings.js';
import { doDeleteRealmExport, doStartRealmExport, EXPORT_TYPES, exportsDir, realmExports, type ExportType } from '../actions/realm-exports.js';

const list = authed(async (req) => {
  if (!isAdminRole(req.user.role)) throw adminRequired();
  return { exports: await req.app.store.read((tx) => realmExports(req.app, tx, req.realm)) };
});

const start = authed(async (req) => {
  const type = req.params.str('export_type') ?? 'public';
  if (!(EXPORT_TYPES as readonly string[]).includes(type)) throw badRequest(`Invalid export_type: ${type}`);
  return { id: await doStartRealmExport(req.app, req.realm, req.user, type as ExportType) };
});

const remove = authed(async (req) => {
  await doDeleteRealmExport(req.app, req.realm, req.user, Number(req.pathParams.export_id));
  return {};
});

const consents = authed(async (req) => {
  if (!isAdminRole(req.user.role)) throw adminRequired();
  return { export_consents: await exportConsents(req.app, req.realm) };
});

/** The archive itself; the path's random part is not the only guard: only the organization's administrators get it. */
const download = authed(async (req) => {
  if (!isAdminRole(req.user.role)) throw adminRequired();
  const key = `${req.pathParams.realm_id}/${req.pathParams.secret}/${req.pathParams.file}`;
  const live = Number(req.pathParams.realm_id) === req.realm.id && (await exportFileIsLive(req.app, req.realm, key));
  if (!live) throw notFound('No such export');
  const data = await fs.readFile(path.join(exportsDir(req.app.config.dataDir), key)).catch(() => null);
  if (!data) throw notFound('No such export');
  return new RawResponse(200, data, { 'content-type': 'application/gzip', 'content-disposition': `attachment; filename*=UTF-8''${encodeURIComponent(req.pathParams.file)}`, 'cache-control': 'private, no-store' });
});

export const routes: RouteList = [
  ['export/realm', { GET: list, POST: start }],
  ['export/realm/consents', { GET: consents }],
  ['export/realm/{export_id:int}', { DELETE: remove }],
  [`${NON_API_ROUTE}/user_uploads/exports/{realm_id:int}/{secret}/{file}`, { GET: download }],
];
