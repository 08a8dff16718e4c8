// A user's uploaded files as GET /attachments and the attachment events show them, and the organization's usage.
import type { Attachment } from '../store/schema.js';
import type { Tx } from '../store/store.js';
import { ApiError } from '../core/api-error.js';

export const invalidAttachment = () => new ApiError('Invalid attachment', 'BAD_REQUEST', 400);

export function presentAttachment(att: Attachment, messageIds: number[]): Record<string, unknown> {
  return { id: att.id, name: att.file_name, path_id: att.path_id, size: att.size, create_time: att.create_time, message_ids: messageIds };
}

/** Linking messages per attachment, oldest first; links to deleted messages do not count. */
async function linkedMessages(tx: Tx, ids: number[]): Promise<Map<number, number[]>> {
  const out = new Map<number, number[]>(ids.map((id) => [id, []]));
  if (!ids.length) return out;
  const rows = await tx
    .selectFrom('attachment_messages as am')
    .innerJoin('messages as m', 'm.id', 'am.message_id')
    .select(['am.attachment_id', 'am.message_id'])
    .where('am.attachment_id', 'in', ids)
    .orderBy('am.message_id')
    .execute();
  for (const r of rows) out.get(r.attachment_id)!.push(r.message_id);
  return out;
}

/** The given attachments, presented with their messages. */
export async function presentAttachments(tx: Tx, atts: Attachment[]): Promise<Record<string, unknown>[]> {
  const links = await linkedMessages(
    tx,
    atts.map((a) => a.id),
  );
  return atts.map((a) => presentAttachment(a, links.get(a.id) ?? []));
}

/** The files a user uploaded, newest first. */
export async function userAttachments(tx: Tx, userId: number): Promise<Record<string, unknown>[]> {
  const atts = await tx.selectFrom('attachments').selectAll().where('owner_id', '=', userId).orderBy('id', 'desc').execute();
  return presentAttachments(tx, atts);
}

/** Bytes of every file uploaded in the organization (what its upload quota counts). */
export async function uploadSpaceUsed(tx: Tx, realmId: number): Promise<number> {
  const row = await tx.selectFrom('attachments').select((eb) => eb.fn.sum<number | string | null>('size').as('total')).where('realm_id', '=', realmId).executeTakeFirst();
  return Number(row?.total ?? 0);
}
