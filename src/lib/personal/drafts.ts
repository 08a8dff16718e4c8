// Drafts: the Draft object's validation (as sent by clients), its addressing checks, and its API form.
import type { Tx } from '../../store/store.js';
import type { Realm, User } from '../../store/schema.js';
import type { Selectable } from 'kysely';
import type { DraftTable } from '../../store/schema.js';
import { ApiError, badRequest } from '../../core/api-error.js';
import { invalidParam, oneOf, vIntList, vObject } from '../../core/params.js';
import { MAX_MESSAGE_LENGTH, MAX_TOPIC_LENGTH } from '../../models/limits.js';
import { accessStreamById } from '../streams/access.js';
import { accessibleUserIds } from '../users.js';
import { isDbId, MAX_DB_ID } from '../messages/access.js';
import { userSetting } from '../../models/user-settings.js';
import type { Dialect } from '../../store/dialect.js';

export type DraftType = '' | 'stream' | 'private';
const TYPES: readonly DraftType[] = ['', 'stream', 'private'];

export interface DraftInput {
  type: DraftType;
  to: number[];
  topic: string;
  content: string;
  /** Seconds; null when the client left it to the server. */
  timestamp: number | null;
}

export type DraftRow = Selectable<DraftTable>;

const REQUIRED = ['type', 'to', 'topic', 'content'] as const;
const ALLOWED = new Set<string>([...REQUIRED, 'timestamp']);

export const draftDoesNotExist = () => new ApiError('Draft does not exist', 'BAD_REQUEST', 404);
export const draftsDisabled = () => badRequest('User has disabled synchronizing drafts.');

const codePoints = (s: string) => [...s].length;

/** One Draft object from a JSON parameter; `name` is its path for messages ("drafts[0]", "draft"). */
export function vDraft(value: unknown, name: string): DraftInput {
  const o = vObject(value, name);
  for (const k of Object.keys(o)) if (!ALLOWED.has(k)) throw invalidParam(`${name} has an unexpected key: ${k}`, name);
  for (const k of REQUIRED) if (!(k in o)) throw invalidParam(`${name} key is missing: ${k}`, name);
  const field = (k: string) => `${name}["${k}"]`;
  if (typeof o.type !== 'string') throw invalidParam(`${field('type')} is not a string`, name);
  const type = oneOf(o.type, TYPES, field('type'));
  const to = vIntList(o.to, field('to'));
  if (typeof o.topic !== 'string') throw invalidParam(`${field('topic')} is not a string`, name);
  if (typeof o.content !== 'string') throw invalidParam(`${field('content')} is not a string`, name);
  // The spec forbids null bytes in every draft text, whatever the type.
  if (o.topic.includes('\0')) throw invalidParam('Topic must not contain null bytes', name);
  if (o.content.includes('\0')) throw invalidParam('Content must not contain null bytes', name);
  if (codePoints(o.content) > MAX_MESSAGE_LENGTH) throw invalidParam(`Content is too long (limit: ${MAX_MESSAGE_LENGTH} characters)`, name);
  let timestamp: number | null = null;
  if (o.timestamp !== undefined && o.timestamp !== null) {
    if (typeof o.timestamp !== 'number' || !Number.isFinite(o.timestamp)) throw invalidParam(`${field('timestamp')} is not a number`, name);
    // Clients send seconds, sometimes with a fraction; stored columns are 32-bit.
    timestamp = Math.floor(o.timestamp);
    if (timestamp < 0 || timestamp > MAX_DB_ID) throw invalidParam(`${field('timestamp')} is out of range`, name);
  }
  if (type === 'stream') {
    if (to.length !== 1) throw badRequest('Must specify exactly 1 channel ID for channel messages');
    const topic = o.topic.trim();
    if (codePoints(topic) > MAX_TOPIC_LENGTH) throw invalidParam(`topic is too long (limit: ${MAX_TOPIC_LENGTH} characters)`, name);
    return { type, to, topic, content: o.content, timestamp };
  }
  // Topics belong to channel drafts only; unaddressed drafts have no recipients.
  if (type === '') return { type, to: [], topic: '', content: o.content, timestamp };
  return { type, to: [...new Set(to)].sort((a, b) => a - b), topic: '', content: o.content, timestamp };
}

/** The draft's recipients must be a channel the user can see, or users of the organization they can reach. */
export async function checkDraftAddress(tx: Tx, realm: Realm, user: User, d: DraftInput): Promise<void> {
  if (d.type === 'stream') {
    if (!isDbId(d.to[0])) throw badRequest('Invalid channel ID');
    await accessStreamById(tx, user, d.to[0]);
    return;
  }
  if (d.type !== 'private' || !d.to.length) return;
  const bad = d.to.find((id) => !isDbId(id));
  if (bad !== undefined) throw badRequest(`Invalid user ID ${bad}`);
  const rows = await tx.selectFrom('users').select('id').where('realm_id', '=', realm.id).where('id', 'in', d.to).execute();
  const found = new Set(rows.map((r) => r.id));
  const missingId = d.to.find((id) => !found.has(id));
  if (missingId !== undefined) throw badRequest(`Invalid user ID ${missingId}`);
  const reachable = await accessibleUserIds(tx, realm, user);
  if (reachable && d.to.some((id) => !reachable.has(id))) throw badRequest('You do not have permission to access some of the recipients.');
}

export function draftDict(row: DraftRow): Record<string, unknown> {
  return { id: row.id, type: row.type, to: JSON.parse(row.to_ids) as number[], topic: row.topic, content: row.content, timestamp: row.last_edit_time };
}

/** A user's drafts in the API's order: most recently edited first (then newest first). */
export async function userDrafts(tx: Tx, userId: number): Promise<Record<string, unknown>[]> {
  const rows = await tx.selectFrom('drafts').selectAll().where('user_id', '=', userId).orderBy('last_edit_time', 'desc').orderBy('id', 'desc').execute();
  return rows.map(draftDict);
}

/**
 * Refuses when the user turned drafts synchronization off. Reads the setting in the transaction
 * (locking the user row on PostgreSQL), so a concurrent switch-off, which deletes the drafts under
 * its own lock of that row, cannot leave a draft behind. Reads pass lockOn null.
 */
export async function checkDraftsEnabled(tx: Tx, userId: number, lockOn: Dialect | null): Promise<void> {
  let q = tx.selectFrom('users').select('settings').where('id', '=', userId);
  if (lockOn === 'postgres') q = q.forShare();
  const row = await q.executeTakeFirstOrThrow();
  if (userSetting(row.settings, 'enable_drafts_synchronization') !== true) throw draftsDisabled();
}
