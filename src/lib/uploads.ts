// Uploaded files: names and paths, who may fetch one, linking to messages, and temporary signed URLs.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { AppContext } from '../context.js';
import type { Tx } from '../store/store.js';
import type { Attachment, User } from '../store/schema.js';
import { ApiError } from '../core/api-error.js';
import { RawResponse } from '../core/results.js';
import { canAccessStreamHistory, streamById } from './messages/access.js';
import { isSubscribed } from './streams/access.js';
import { uploadFileKey } from './storage/keys.js';

export const fileNotFound = () => new ApiError('This file does not exist or has been deleted.', 'BAD_REQUEST', 404);
export const fileForbidden = () => new ApiError('You are not authorized to view this file.', 'BAD_REQUEST', 403);

/** A name safe in a URL path segment and a file system: word characters, dots, dashes, underscores. */
export function sanitizeFileName(name: string): string {
  const cleaned = name
    .normalize('NFKC')
    .replace(/[^\p{L}\p{N}_\s.-]/gu, '')
    .trim()
    .replace(/[-\s]+/g, '-')
    .slice(0, 200);
  return cleaned === '' || cleaned === '.' || cleaned === '..' ? 'uploaded-file' : cleaned;
}

/** "{realm_id}/{2 hex}/{24 random}/{name}", the shape of the original's upload paths. */
export function newPathId(realmId: number, fileName: string): string {
  return `${realmId}/${randomBytes(1).toString('hex')}/${randomBytes(18).toString('base64url')}/${sanitizeFileName(fileName)}`;
}

export const newUrlSecret = (): string => randomBytes(24).toString('base64url');

export async function attachmentByPath(tx: Tx, realmId: number, pathId: string): Promise<Attachment | undefined> {
  return tx.selectFrom('attachments').selectAll().where('path_id', '=', pathId).where('realm_id', '=', realmId).executeTakeFirst();
}

/** The uploader, or anyone who may read a message linking the file. */
export async function canAccessAttachment(tx: Tx, user: User, att: Attachment): Promise<boolean> {
  if (user.realm_id !== att.realm_id) return false;
  if (att.owner_id === user.id) return true;
  // Received messages: user_messages is read by its (message_id, user_id) key, never by user alone.
  const received = await tx
    .selectFrom('attachment_messages as am')
    .innerJoin('user_messages as um', (j) => j.onRef('um.message_id', '=', 'am.message_id').on('um.user_id', '=', user.id))
    .select('am.message_id')
    .where('am.attachment_id', '=', att.id)
    .executeTakeFirst();
  if (received) return true;
  // Channel messages the user may read through the channel's history.
  const streams = await tx
    .selectFrom('attachment_messages as am')
    .innerJoin('messages as m', 'm.id', 'am.message_id')
    .select('m.stream_id')
    .distinct()
    .where('am.attachment_id', '=', att.id)
    .where('m.stream_id', 'is not', null)
    .execute();
  for (const { stream_id } of streams) {
    const stream = await streamById(tx, user.realm_id, stream_id!);
    if (stream && canAccessStreamHistory(user, stream, await isSubscribed(tx, user.id, stream.id))) return true;
  }
  return false;
}

/** Path IDs ("{realm}/…") that message content links; at most a few dozen are considered. */
export function linkedPathIds(content: string, realmId: number): string[] {
  const out = new Set<string>();
  for (const m of content.matchAll(/\/user_uploads\/(\d+\/[^\s()[\]<>"'?#]+)/g)) {
    let p = m[1];
    try {
      p = decodeURIComponent(p);
    } catch {
      continue;
    }
    if (p.startsWith(`${realmId}/`)) out.add(p);
    if (out.size >= 50) break;
  }
  return [...out];
}

/**
 * Links the files a sent or edited message names to it, so its readers may fetch them. Only files
 * the author may already fetch are linked: knowing a URL alone must not share a file.
 * Callers check `content.includes('/user_uploads/')` first, keeping the common send free of queries.
 * Returns the files newly linked (their uploaders get an attachment update).
 */
export async function linkAttachments(tx: Tx, author: User, messageId: number, content: string): Promise<Attachment[]> {
  const pathIds = linkedPathIds(content, author.realm_id);
  if (!pathIds.length) return [];
  const atts = await tx.selectFrom('attachments').selectAll().where('realm_id', '=', author.realm_id).where('path_id', 'in', pathIds).execute();
  const linked: Attachment[] = [];
  for (const att of atts) {
    if (!(await canAccessAttachment(tx, author, att))) continue;
    const r = await tx
      .insertInto('attachment_messages')
      .values({ attachment_id: att.id, message_id: messageId })
      .onConflict((oc) => oc.columns(['attachment_id', 'message_id']).doNothing())
      .returning('attachment_id')
      .executeTakeFirst();
    if (r) linked.push(att);
  }
  return linked;
}

function signature(att: Pick<Attachment, 'id' | 'url_secret'>, expires: number): Buffer {
  return createHmac('sha256', att.url_secret).update(`${att.id}.${expires}`).digest();
}

/** "{attachment id}.{expiry}.{signature}", checked with the file's own secret. */
export function temporaryToken(att: Attachment, expires: number): string {
  return `${att.id}.${expires}.${signature(att, expires).toString('base64url')}`;
}

export const invalidToken = () => new ApiError('Invalid token', 'BAD_REQUEST', 400);

/** The attachment a temporary token names, when the signature matches and it has not expired. */
export async function attachmentForToken(tx: Tx, realmId: number, token: string, now: number): Promise<Attachment> {
  const m = /^(\d{1,10})\.(\d{1,12})\.([A-Za-z0-9_-]{43})$/.exec(token);
  if (!m) throw invalidToken();
  const [id, expires] = [Number(m[1]), Number(m[2])];
  const att = await tx.selectFrom('attachments').selectAll().where('id', '=', id).where('realm_id', '=', realmId).executeTakeFirst();
  if (!att) throw invalidToken();
  const given = Buffer.from(m[3], 'base64url');
  const expected = signature(att, expires);
  if (given.length !== expected.length || !timingSafeEqual(given, expected) || expires < now) throw invalidToken();
  return att;
}

/** Raster images a browser may show inline; everything else (SVG included: it can run script) downloads. */
const INLINE_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/avif', 'image/bmp']);

export async function fileResponse(app: AppContext, att: Attachment): Promise<RawResponse> {
  const data = await app.files.get(uploadFileKey(att.path_id));
  if (!data) throw fileNotFound();
  const disposition = INLINE_TYPES.has(att.content_type) ? 'inline' : 'attachment';
  return new RawResponse(200, data, {
    'content-type': att.content_type,
    'content-disposition': `${disposition}; filename*=UTF-8''${encodeURIComponent(att.file_name)}`,
    'x-content-type-options': 'nosniff',
    'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; sandbox",
    'cache-control': 'private, max-age=86400',
  });
}
