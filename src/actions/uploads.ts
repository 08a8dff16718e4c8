// Storing an uploaded file: size limit, organization quota, the bytes, then the attachments row (and its event).
import type { AppContext } from '../context.js';
import type { Realm, User } from '../store/schema.js';
import type { Tx } from '../store/store.js';
import type { UploadedFile } from '../core/results.js';
import { badRequest } from '../core/api-error.js';
import { newPathId, newUrlSecret } from '../lib/uploads.js';
import { uploadFileKey } from '../lib/storage/keys.js';
import { publishCommitted } from '../events/publish.js';
import { attachmentEvents } from './attachments.js';

const MIB = 1024 * 1024;

export interface StoredUpload {
  pathId: string;
  fileName: string;
}

async function checkQuota(app: AppContext, tx: Tx, realmId: number, size: number): Promise<void> {
  if (!app.config.uploadQuotaMib) return;
  const row = await tx.selectFrom('attachments').select((eb) => eb.fn.sum<number | string | null>('size').as('total')).where('realm_id', '=', realmId).executeTakeFirst();
  if (Number(row?.total ?? 0) + size > app.config.uploadQuotaMib * MIB) throw badRequest("Upload would exceed your organization's upload quota.");
}

export async function doUploadFile(app: AppContext, realm: Realm, user: User, file: UploadedFile): Promise<StoredUpload> {
  const max = app.config.maxFileUploadSizeMib;
  if (file.size > max * MIB) throw badRequest(`Uploaded file is larger than the allowed limit of ${max} MiB`);
  // Checked before the bytes are written (cheap refusal) and again in the transaction that records them.
  await checkQuota(app, app.store.db, realm.id, file.size);
  const fileName = (file.filename || 'uploaded-file').slice(0, 255);
  const pathId = newPathId(realm.id, fileName);
  const key = uploadFileKey(pathId);
  await app.files.put(key, await file.read(), file.mimeType);
  try {
    const { result: outgoing, stamp } = await app.store.write(async (tx) => {
      await checkQuota(app, tx, realm.id, file.size);
      const att = await tx
        .insertInto('attachments')
        .values({
          realm_id: realm.id,
          owner_id: user.id,
          path_id: pathId,
          file_name: fileName,
          size: file.size,
          content_type: file.mimeType || 'application/octet-stream',
          create_time: app.clock.now(),
          url_secret: newUrlSecret(),
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      return attachmentEvents(tx, 'add', [att]);
    });
    publishCommitted(app, realm.id, stamp, outgoing);
  } catch (err) {
    // No row, no file: an unrecorded file would count against nothing and never be served.
    await app.files.delete(key).catch(() => undefined);
    throw err;
  }
  return { pathId, fileName };
}
