// Data exports: GET and POST /export/realm, DELETE /export/realm/{export_id}, GET /export/realm/consents,
// and the export files at /user_uploads/exports/{realm_id}/{secret}/{file} (administrators only).
import type { RouteList } from '../http/router.js';
import { endpoint } from '../http/endpoint.js';
import { ApiError, badRequest, notFound } from '../core/api-error.js';
import { Type, id, loose, str } from '../core/param-types.js';
import { NON_API_ROUTE } from '../http/router.js';
import { RawResponse } from '../core/results.js';
import { isAdminRole } from '../models/roles.js';
import type { AuthedRequest } from '../http/types.js';
import { exportConsents, exportFileIsLive } from '../lib/realm-exports.js';
import { exportFileKey } from '../lib/storage/keys.js';
import { adminRequired } from '../actions/settings.js';
import { doDeleteRealmExport, doStartRealmExport, EXPORT_TYPES, realmExports, type ExportType } from '../actions/realm-exports.js';

const mustBeAdmin = (req: AuthedRequest) => {
  if (!isAdminRole(req.user.role)) throw adminRequired();
};

const Export = loose(
  Type.Object({
    id: Type.Integer(),
    acting_user_id: Type.Integer(),
    export_time: Type.Number(),
    deleted_timestamp: Type.Union([Type.Number(), Type.Null()]),
    failed_timestamp: Type.Union([Type.Number(), Type.Null()]),
    pending: Type.Boolean(),
    export_type: Type.String(),
  }),
);

const list = endpoint({
  summary: 'Get all data exports',
  check: mustBeAdmin,
  response: Type.Object({ exports: Type.Array(Export) }),
  run: async (req) => ({ exports: await req.app.store.read((tx) => realmExports(req.app, tx, req.realm)) }),
});

const exportTypeText = str({ default: 'public' });
/** One of EXPORT_TYPES; the error names the value sent, as the original's. */
const exportType = {
  ...exportTypeText,
  schema: Type.Union(EXPORT_TYPES.map((t) => Type.Literal(t)), { default: 'public' }),
  decode: (text: string, name: string): ExportType => {
    const type = exportTypeText.decode(text, name);
    if (!(EXPORT_TYPES as readonly string[]).includes(type)) throw badRequest(`Invalid export_type: ${type}`);
    return type as ExportType;
  },
  default: 'public' as ExportType,
};

const start = endpoint({
  summary: 'Create a data export',
  params: { export_type: exportType },
  response: Type.Object({ id: Type.Integer() }),
  run: async (req, a) => ({ id: await doStartRealmExport(req.app, req.realm, req.user, a.export_type) }),
});

const remove = endpoint({
  summary: 'Delete a data export',
  path: { export_id: id({ invalid: () => new ApiError('Invalid data export ID', 'BAD_REQUEST', 400) }) },
  response: Type.Object({}),
  run: async (req, a) => {
    await doDeleteRealmExport(req.app, req.realm, req.user, a.export_id);
    return {};
  },
});

const consents = endpoint({
  summary: 'Get data export consent state',
  check: mustBeAdmin,
  response: Type.Object({
    export_consents: Type.Array(Type.Object({ user_id: Type.Integer(), consented: Type.Boolean(), email_address_visibility: Type.Integer() })),
  }),
  run: async (req) => ({ export_consents: await exportConsents(req.app, req.realm) }),
});

const noSuchExport = () => notFound('No such export');

/** The archive itself; the path's random part is not the only guard: only the organization's administrators get it. */
const download = endpoint({
  summary: 'Download a data export',
  check: mustBeAdmin,
  path: { realm_id: id({ invalid: noSuchExport }), secret: str({ invalid: noSuchExport }), file: str({ invalid: noSuchExport }) },
  response: Type.Never(),
  raw: 'application/gzip',
  run: async (req, a) => {
    const key = `${a.realm_id}/${a.secret}/${a.file}`;
    const live = a.realm_id === req.realm.id && (await exportFileIsLive(req.app, req.realm, key));
    if (!live) throw noSuchExport();
    const data = await req.app.files.get(exportFileKey(key));
    if (!data) throw noSuchExport();
    return new RawResponse(200, data, { 'content-type': 'application/gzip', 'content-disposition': `attachment; filename*=UTF-8''${encodeURIComponent(a.file)}`, 'cache-control': 'private, no-store' });
  },
});

export const routes: RouteList = [
  ['export/realm', { GET: list, POST: start }],
  ['export/realm/consents', { GET: consents }],
  ['export/realm/{export_id:int}', { DELETE: remove }],
  [`${NON_API_ROUTE}/user_uploads/exports/{realm_id:int}/{secret}/{file}`, { GET: download }],
];
