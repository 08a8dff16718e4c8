// GET /messages' core: pick message IDs around an anchor within a narrow, then load them with the
// viewer's flags. Two or three small ID queries, then one row query and the dict queries.
import type { Tx } from '../../store/store.js';
import type { Message, Realm, User } from '../../store/schema.js';
import type { MessageDict } from '../../presenters/message.js';
import { idColumn, narrowQuery, unreadCondition, type NarrowPlan } from './narrow.js';
import { HISTORICAL_FLAGS, isDbId, MAX_DB_ID, messagesWithViewerFlags } from './access.js';
import { buildMessageDicts } from './dicts.js';

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
  const [beforeRows, afterRows] = await Promise.all([
    select().where(col, anchor > MAX_DB_ID ? '<=' : '<', bound).orderBy(col, 'desc').limit(numBefore + 1).execute(),
    select()
      .where(col, includeAnchor && anchor <= MAX_DB_ID ? '>=' : '>', bound)
      .orderBy(col, 'asc')
      .limit(numAfter + 2)
      .execute(),
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

/** Loads messages by ID with the viewer's flags (read + historical without a row), ascending. */
export async function loadMessages(tx: Tx, realm: Pick<Realm, 'string_id'>, user: Pick<User, 'id'>, ids: number[]): Promise<MessageWithFlags[]> {
  if (!ids.length) return [];
  const rows = await messagesWithViewerFlags(tx, user.id)
    .where('m.id', 'in', ids)
    .orderBy('m.id')
    .execute();
  const messages: Message[] = rows.map(({ um_flags: _f, ...m }) => m);
  const dicts = await buildMessageDicts(tx, realm, messages);
  return dicts.map((dict, i) => ({ dict, flags: rows[i].um_flags ?? HISTORICAL_FLAGS }));
}
