// User statuses: the stored row as the API shows it, the organization's statuses for register, input rules.
import type { Tx } from '../store/store.js';
import type { Realm, User } from '../store/schema.js';
import type { UserStatusRow } from '../store/schema-people.js';
import { badRequest } from '../core/api-error.js';
import { effectiveUserSettings } from '../models/user-settings.js';
import { loadCustomEmoji, parseReactionType, resolveEmojiForAdd } from './emoji/resolve.js';
import { accessibleUserIds } from './users.js';
import { codePoints } from './bot-storage.js';

/** The original's limit on status text, in Unicode code points. */
export const STATUS_TEXT_MAX = 60;

export interface StatusDict {
  away?: true;
  status_text?: string;
  emoji_name?: string;
  emoji_code?: string;
  reaction_type?: string;
}

type StatusFields = Pick<UserStatusRow, 'status_text' | 'emoji_name' | 'emoji_code' | 'reaction_type'>;

/** Only what is set: no key for empty text or no emoji; `away` is the legacy face of presence_enabled off. */
export function statusDict(row: StatusFields | undefined, away: boolean): StatusDict {
  const out: StatusDict = {};
  if (away) out.away = true;
  if (row?.status_text) out.status_text = row.status_text;
  if (row?.emoji_name) {
    out.emoji_name = row.emoji_name;
    out.emoji_code = row.emoji_code;
    out.reaction_type = row.reaction_type;
  }
  return out;
}

export function isAway(user: Pick<User, 'settings'>): boolean {
  return effectiveUserSettings(user.settings).presence_enabled === false;
}

/** One user's status (empty when none). */
export async function userStatus(tx: Tx, user: User): Promise<StatusDict> {
  const row = await tx.selectFrom('user_status').selectAll().where('user_id', '=', user.id).executeTakeFirst();
  return statusDict(row, isAway(user));
}

/** register's user_status: active users with a status the viewer may access, keyed by user ID. */
export async function realmStatuses(tx: Tx, realm: Realm, viewer: User | null): Promise<Record<string, StatusDict>> {
  const rows = await tx
    .selectFrom('users as u')
    .leftJoin('user_status as s', 's.user_id', 'u.id')
    .select(['u.id', 'u.settings', 's.status_text', 's.emoji_name', 's.emoji_code', 's.reaction_type'])
    .where('u.realm_id', '=', realm.id)
    .where('u.is_active', '=', 1)
    .where((eb) => eb.or([eb('s.user_id', 'is not', null), eb('u.settings', 'like', '%presence_enabled%')]))
    .orderBy('u.id')
    .execute();
  const access = viewer ? await accessibleUserIds(tx, realm, viewer) : null;
  const out: Record<string, StatusDict> = {};
  for (const r of rows) {
    if (access && !access.has(r.id)) continue;
    const fields = r.status_text === null ? undefined : (r as StatusFields);
    const d = statusDict(fields, isAway(r));
    if (Object.keys(d).length) out[String(r.id)] = d;
  }
  return out;
}

export interface StatusInput {
  away?: boolean;
  statusText?: string;
  emojiName?: string;
  emojiCode?: string;
  reactionType?: string;
}

/** The change to store: text trimmed, the emoji resolved and checked (empty name clears it); the original's errors. */
export async function checkStatusInput(tx: Tx, realm: Realm, input: StatusInput): Promise<{ away?: boolean; text?: string; emoji?: { name: string; code: string; type: string } }> {
  const text = input.statusText?.trim();
  if (input.away === undefined && text === undefined && input.emojiName === undefined) throw badRequest('Client did not pass any new values.');
  if (text !== undefined && codePoints(text) > STATUS_TEXT_MAX) throw badRequest(`status_text is too long (limit: ${STATUS_TEXT_MAX} characters)`);
  if (input.emojiName === undefined && (input.emojiCode !== undefined || input.reactionType !== undefined)) {
    throw badRequest('Client must pass emoji_name if they pass either emoji_code or reaction_type.');
  }
  let emoji: { name: string; code: string; type: string } | undefined;
  if (input.emojiName === '') emoji = { name: '', code: '', type: 'unicode_emoji' };
  else if (input.emojiName !== undefined) {
    const custom = await loadCustomEmoji(tx, realm.id);
    const ref = resolveEmojiForAdd(input.emojiName, input.emojiCode, parseReactionType(input.reactionType), custom);
    emoji = { name: ref.emojiName, code: ref.emojiCode, type: ref.reactionType };
  }
  return { away: input.away, text, emoji };
}
