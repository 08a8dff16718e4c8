// GET /messages' core: pick message IDs around an anchor within a narrow, then load them with the
// viewer's flags. One to three small ID queries, then one row query and the dict queries.
import type { Tx } from '../../store/store.js';
import type { Dialect } from '../../store/dialect.js';
import { jsonRowsColumn, parseJsonRows } from '../../store/json-rows.js';
import type { Realm, User } from '../../store/schema.js';
import type { MessageDict } from '../../presenters/message.js';
import { idColumn, narrowQuery, unreadCondition, type NarrowPlan } from './narrow.js';
import { HISTORICAL_FLAGS, isDbId, MAX_DB_ID } from './access.js';
import { buildMessageDicts, DICT_COLUMNS, type DictMessage } from './dicts.js';

/** The original's stand-in for "after every message" when the anchor is `newest`. */
export const LARGER_THAN_MAX_MESSAGE_ID = 10000000000000000;

export type AnchorSpec = number | 'newest' | 'oldest' | 'first_unread';

export interface RangeResult {
  ids: number[];
  anchor: number;
  found_anchor: boolean;
  found_oldest: boolean;
  found_newest: boolean;
}

async function resolveAnchor(tx: Tx, plan: NarrowPlan, spec: AnchorSpec): Promise<number> {
  if (spec === 'newest') return LARGER_THAN_MAX_MESSAGE_ID;
  if (spec === 'oldest') return 0;
  if (spec !== 'first_unread') return spec;
  const col = idColumn(plan);
  const row = await narrowQuery(tx, plan).where(await unreadCondition(tx, plan)).select(`${col} as id`).orderBy(col, 'asc').limit(1).executeTakeFirst();
  return row ? Number(row.id) : LARGER_THAN_MAX_MESSAGE_ID;
}

/**
 * IDs around the anchor: one extra row each way tells whether the ends were reached. The anchor
 * itself rides with the "after" query.
 */
export async function fetchRange(tx: Tx, plan: NarrowPlan, spec: AnchorSpec, numBefore: number, numAfter: number, includeAnchor: boolean): Promise<RangeResult> {
  const anchor = await resolveAnchor(tx, plan, spec);
  const bound = Math.min(anchor, MAX_DB_ID);
  const col = idColumn(plan);
  const select = () => narrowQuery(tx, plan).select(`${col} as id`);
  const afterOp = includeAnchor && anchor <= MAX_DB_ID ? '>=' : '>';
  const [beforeRows, afterRows] = await Promise.all([
    select().where(col, anchor > MAX_DB_ID ? '<=' : '<', bound).orderBy(col, 'desc').limit(numBefore + 1).execute(),
    // Nothing lies above the largest ID (the `newest` anchor): no query needed.
    afterOp === '>' && bound === MAX_DB_ID ? [] : select().where(col, afterOp, bound).orderBy(col, 'asc').limit(numAfter + 2).execute(),
  ]);
  const before = beforeRows.map((r) => Number(r.id));
  let after = afterRows.map((r) => Number(r.id));
  const found_anchor = includeAnchor && after[0] === anchor;
  if (found_anchor) after = after.slice(1);
  const found_oldest = before.length <= numBefore;
  const found_newest = after.length <= numAfter;
  const ids = [...before.slice(0, numBefore).reverse(), ...(found_anchor ? [anchor] : []), ...after.slice(0, numAfter)];
  return { ids, anchor, found_anchor, found_oldest, found_newest };
}

/** Specific IDs (message_ids parameter) that the plan matches, ascending. */
export async function fetchListed(tx: Tx, plan: NarrowPlan, ids: number[]): Promise<number[]> {
  ids = ids.filter(isDbId);
  if (!ids.length) return [];
  const col = idColumn(plan);
  const rows = await narrowQuery(tx, plan).select(`${col} as id`).where(col, 'in', ids).orderBy(col, 'asc').execute();
  return rows.map((r) => Number(r.id));
}

export interface MessageWithFlags {
  dict: MessageDict;
  flags: number;
}

type FlaggedRow = DictMessage & { um_flags: number | null };

/** The keys of a row read as JSON: the dict's columns, then the viewer's flags. */
const FLAGGED_KEYS = [...DICT_COLUMNS, 'um_flags'] as const;

/**
 * Message rows by ID with the viewer's user_messages flags (null without a row), ascending; as
 * access.ts's messagesWithViewerFlags, but with only the columns a dict needs. On SQLite as one
 * JSON array (store/json-rows.ts): for a page of 100 messages that halves the cost of the rows.
 */
async function flaggedRows(tx: Tx, dialect: Dialect | undefined, userId: number, ids: number[]): Promise<FlaggedRow[]> {
  const q = tx
    .selectFrom('messages as m')
    .leftJoin('user_messages as um', (j) => j.onRef('um.message_id', '=', 'm.id').on('um.user_id', '=', userId))
    .where('m.id', 'in', ids);
  if (dialect === 'sqlite') {
    const row = await q.select(jsonRowsColumn([...DICT_COLUMNS.map((c) => `m.${c}`), 'um.flags']).as('rows')).executeTakeFirstOrThrow();
    return parseJsonRows<FlaggedRow>(row.rows, FLAGGED_KEYS);
  }
  return q
    .select(DICT_COLUMNS.map((c) => `m.${c}` as const))
    .select('um.flags as um_flags')
    .orderBy('m.id')
    .execute();
}

/**
 * Loads messages by ID with the viewer's flags (read + historical without a row), ascending.
 * `dialect` picks the faster row transfer on SQLite; without it the portable query is used.
 */
export async function loadMessages(tx: Tx, realm: Pick<Realm, 'string_id'>, user: Pick<User, 'id'>, ids: number[], dialect?: Dialect): Promise<MessageWithFlags[]> {
  if (!ids.length) return [];
  const rows = await flaggedRows(tx, dialect, user.id, ids);
  // The rows go to buildMessageDicts as they are (it ignores um_flags), not copied.
  const dicts = await buildMessageDicts(tx, realm, rows);
  return dicts.map((dict, i) => ({ dict, flags: rows[i].um_flags ?? HISTORICAL_FLAGS }));
}
