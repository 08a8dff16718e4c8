// POST /user_uploads, the temporary-URL lookup, thumbnail status, and serving files at the URLs messages link.
import type { RouteList } from '../http/router.js';
import { acceptsFiles } from '../http/handlers.js';
import { endpoint } from '../http/endpoint.js';
import { Type, id, str } from '../core/param-types.js';
import { badRequest } from '../core/api-error.js';
import { NON_API_ROUTE } from '../http/router.js';
import type { Attachment, Realm, User } from '../store/schema.js';
import type { AppContext } from '../context.js';
import { doUploadFile } from '../actions/uploads.js';
import { attachmentByPath, attachmentForToken, canAccessAttachment, fileForbidden, fileNotFound, fileResponse, temporaryToken } from '../lib/uploads.js';

const MIB = 1024 * 1024;

const upload = endpoint({
  summary: 'Upload a file',
  response: Type.Object({ uri: Type.String(), url: Type.String(), filename: Type.String() }),
  run: async (req) => {
    if (req.files.length === 0) throw badRequest('You must specify a file to upload');
    if (req.files.length > 1) throw badRequest('You may only upload one file at a time');
    const { pathId, fileName } = await doUploadFile(req.app, req.realm, req.user, req.files[0]);
    const url = `/user_uploads/${pathId}`;
    return { uri: url, url, filename: fileName };
  },
});

/** The file at {realm_id}/{filename} when the user may fetch it; another organization's path is not found. */
async function accessible(app: AppContext, realm: Realm, user: User, realmId: number, filename: string): Promise<Attachment> {
  if (realmId !== realm.id) throw fileNotFound();
  const att = await attachmentByPath(app.store.db, realm.id, `${realmId}/${filename}`);
  if (!att) throw fileNotFound();
  if (!(await canAccessAttachment(app.store.db, user, att))) throw fileForbidden();
  return att;
}

/** An uploaded file's path: a path that cannot name one (NUL bytes, a realm ID past 32 bits) is not found. */
const filePath = { realm_id: id({ invalid: fileNotFound }), filename: str({ invalid: fileNotFound }) };

/** GET /api/v1/user_uploads/{realm_id}/{filename}: a short-lived URL that needs no authentication. */
const temporaryUrl = endpoint({
  summary: 'Get a temporary URL for an uploaded file',
  path: filePath,
  response: Type.Object({ url: Type.String() }),
  run: async (req, a) => {
    const { app, realm, user } = req;
    const att = await accessible(app, realm, user, a.realm_id, a.filename);
    const token = temporaryToken(att, app.clock.now() + app.config.signedUploadUrlSecs);
    const base = att.path_id.slice(att.path_id.lastIndexOf('/') + 1);
    return { url: `/user_uploads/temporary/${token}/${encodeURIComponent(base)}` };
  },
});

/** GET /user_uploads/{realm_id}/{filename} with API credentials: the file itself. */
const serveFile = endpoint({
  summary: 'Get an uploaded file',
  path: filePath,
  response: Type.Never(),
  raw: 'application/octet-stream',
  run: async (req, a) => fileResponse(req.app, await accessible(req.app, req.realm, req.user, a.realm_id, a.filename)),
});

/**
 * GET /thumbnail/status/{realm_id}/{filename}: with the file's own access rules. Parley makes no thumbnails
 * (register's server_thumbnail_formats is empty), so a file the user may fetch never has one.
 */
const thumbnailStatus = endpoint({
  summary: 'Check thumbnail status',
  path: filePath,
  response: Type.Object({ has_thumbnail: Type.Boolean() }),
  run: async (req, a) => {
    await accessible(req.app, req.realm, req.user, a.realm_id, a.filename);
    return { has_thumbnail: false };
  },
});

/** GET /user_uploads/temporary/{token}/{filename}: the token is the credential. */
const serveTemporary = endpoint({
  summary: 'Get an uploaded file by its temporary URL',
  auth: 'none',
  // The token's own format check refuses anything else (NUL bytes too); the name is the file's, for the client.
  path: { token: str({ allowNul: true }), filename: str({ allowNul: true }) },
  response: Type.Never(),
  raw: 'application/octet-stream',
  run: async (req, a) => fileResponse(req.app, await attachmentForToken(req.app.store.db, req.realm.id, a.token, req.app.clock.now())),
});

export const routes: RouteList = [
  ['user_uploads', { POST: acceptsFiles(upload, (c) => c.maxFileUploadSizeMib * MIB) }],
  ['user_uploads/{realm_id:int}/{filename:path}', { GET: temporaryUrl }],
  ['thumbnail/status/{realm_id:int}/{filename:path}', { GET: thumbnailStatus }],
  [`${NON_API_ROUTE}/user_uploads/temporary/{token}/{filename}`, { GET: serveTemporary }],
  [`${NON_API_ROUTE}/user_uploads/{realm_id:int}/{filename:path}`, { GET: serveFile }],
];
