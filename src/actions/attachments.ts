// Attachment events to the uploader (a file added, linked by a message, deleted) and deleting a file.
import type { AppContext } from '../context.js';
import type { Attachment, Realm, User } from '../store/schema.js';
import type { Tx } from '../store/store.js';
import { publishCommitted, type Outgoing } from '../events/publish.js';
import { invalidAttachment, presentAttachments, uploadSpaceUsed } from '../lib/attachments.js';
import { uploadFileKey } from '../lib/storage/keys.js';

/** One `attachment` event per file, to its uploader, read in the transaction that changed it. */
export async function attachmentEvents(tx: Tx, op: 'add' | 'update', atts: Attachment[]): Promise<Outgoing[]> {
  if (!atts.length) return [];
  const presented = await presentAttachments(tx, atts);
  const used = new Map<number, number>();
  const out: Outgoing[] = [];
  for (const [i, att] of atts.entries()) {
    if (!used.has(att.realm_id)) used.set(att.realm_id, await uploadSpaceUsed(tx, att.realm_id));
    out.push({ users: [att.owner_id], event: { type: 'attachment', op, attachment: presented[i], upload_space_used: used.get(att.realm_id) } });
  }
  return out;
}

/** Deletes the caller's own file: its row, its message links, then its bytes once committed. */
export async function doDeleteAttachment(app: AppContext, realm: Realm, user: User, attachmentId: number): Promise<void> {
  const { result, stamp } = await app.store.write(async (tx) => {
    const att = await tx.selectFrom('attachments').selectAll().where('id', '=', attachmentId).where('owner_id', '=', user.id).where('realm_id', '=', realm.id).executeTakeFirst();
    if (!att) throw invalidAttachment();
    await tx.deleteFrom('attachment_messages').where('attachment_id', '=', att.id).execute();
    await tx.deleteFrom('attachments').where('id', '=', att.id).execute();
    return { att, used: await uploadSpaceUsed(tx, realm.id) };
  });
  // After the commit: a failed write keeps both row and file; a failed delete leaves only unreachable bytes.
  await app.files.delete(uploadFileKey(result.att.path_id)).catch(() => undefined);
  publishCommitted(app, realm.id, stamp, [{ users: [user.id], event: { type: 'attachment', op: 'remove', attachment: { id: attachmentId }, upload_space_used: result.used } }]);
}
