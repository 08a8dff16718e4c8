// GET /messages' core: pick message IDs around an anchor within a narrow, then load them with the
// viewer's flags. One to three small ID queries, then one row query and the dict queries.
import { sql } from 'kysely';
import type { Tx } from '../../store/store.js';
import type { Dialect } from '../../store/dialect.js';
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

/** One element of the SQLite JSON array below, in DICT_COLUMNS order, then the viewer's flags. */
type JsonRow = [
  id: number,
  type: number,
  recipient_id: number,
  stream_id: number | null,
  sender_id: number,
  topic: string,
  content: string,
  rendered_content: string,
  date_sent: number,
  sending_client: string,
  last_edit_time: number | null,
  last_moved_time: number | null,
  edit_history: string | null,
  is_me_message: number,
  um_flags: number | null,
];

/** Exported for its test: the literal must follow DICT_COLUMNS. */
export const fromJsonRow = (r: JsonRow): FlaggedRow => ({
  id: r[0],
  type: r[1],
  recipient_id: r[2],
  stream_id: r[3],
  sender_id: r[4],
  topic: r[5],
  content: r[6],
  rendered_content: r[7],
  date_sent: r[8],
  sending_client: r[9],
  last_edit_time: r[10],
  last_moved_time: r[11],
  edit_history: r[12],
  is_me_message: r[13],
  um_flags: r[14],
});

/**
 * Message rows by ID with the viewer's user_messages flags (null without a row), ascending; as
 * access.ts's messagesWithViewerFlags, but with only the columns a dict needs.
 *
 * On SQLite the rows come back as one JSON array: better-sqlite3 builds each result row as a
 * dictionary-mode object, which for 100 wide rows costs about as much as the rest of the fetch,
 * while SQLite writes JSON and JSON.parse reads it in about half that time. JSON keeps every
 * value these columns hold (integers, text, null) exactly.
 */
async function flaggedRows(tx: Tx, dialect: Dialect | undefined, userId: number, ids: number[]): Promise<FlaggedRow[]> {
  const q = tx
    .selectFrom('messages as m')
    .leftJoin('user_messages as um', (j) => j.onRef('um.message_id', '=', 'm.id').on('um.user_id', '=', userId))
    .where('m.id', 'in', ids);
  if (dialect === 'sqlite') {
    const columns = sql.join([...DICT_COLUMNS.map((c) => sql.ref(`m.${c}`)), sql.ref('um.flags')]);
    const row = await q.select(sql<string>`json_group_array(json_array(${columns}) order by m.id)`.as('rows')).executeTakeFirstOrThrow();
    return (JSON.parse(row.rows) as JsonRow[]).map(fromJsonRow);
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
