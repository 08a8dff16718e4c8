// A narrow (list of operator/operand terms) → conditions over messages `m` and the viewer's rows `um`.
// Narrows to channels whose history the viewer may read query messages directly ("shared" plans);
// every other narrow keeps to the viewer's own rows, probed by primary key from messages (or driven
// by a partial index for rare flags: user_messages has no index on all of a user's rows).
import { sql, type Expression, type ExpressionBuilder, type SelectQueryBuilder, type SqlBool } from 'kysely';
import type { Tx } from '../../store/store.js';
import type { Realm, User } from '../../store/schema.js';
import type { Dialect } from '../../store/dialect.js';
import type { NarrowTerm } from '../../models/narrow.js';
import { FLAG_BITS } from '../../models/flags.js';
import { Role } from '../../models/roles.js';
import { badRequest } from '../../core/api-error.js';
import { isSubscribed } from '../streams/access.js';
import { canAccessStreamHistory, HISTORICAL_FLAGS, isDbId, streamById, streamByName } from './access.js';
import { findDmRecipient } from './recipients.js';
import { normalizeTopicInput, RESOLVED_TOPIC_PREFIX, topicKey } from './topic.js';
import { searchCondition } from './search.js';
import { MESSAGE_TYPE_PRIVATE, MESSAGE_TYPE_STREAM } from './dicts.js';
import { lowestUnreadId } from './unread.js';

type EB = ExpressionBuilder<any, any>;
type Cond = (eb: EB) => Expression<SqlBool>;
// Both plan shapes select from messages `m` joined with user_messages `um`; the typed builder adds nothing here.
export type MessageQuery = SelectQueryBuilder<any, any, any>;

export interface NarrowPlan {
  shared: boolean;
  userId: number;
  realmId: number;
  conditions: Cond[];
  hasSearch: boolean;
  /** Personal plans only: a partial-index predicate (exact index text) to drive the query from. */
  driver: string | null;
  /** A channel or conversation term pins m.recipient_id, so the realm test (which could steer SQLite onto the realm index) is left out. */
  byRecipient: boolean;
}

const bad = (what: string) => badRequest(`Invalid narrow operator: ${what}`);
const MENTION_BITS = FLAG_BITS.mentioned | FLAG_BITS.stream_wildcard_mentioned | FLAG_BITS.topic_wildcard_mentioned;

/** `is:` operands a partial index serves, with the predicate text of that index (see migration 002). */
const DRIVERS: Record<string, string> = {
  dm: `(um.flags & ${FLAG_BITS.is_private}) <> 0`,
  private: `(um.flags & ${FLAG_BITS.is_private}) <> 0`,
  starred: `(um.flags & ${FLAG_BITS.starred}) <> 0`,
  mentioned: `(um.flags & ${MENTION_BITS}) <> 0`,
  alerted: `(um.flags & ${FLAG_BITS.has_alert_word}) <> 0`,
};

const ALIASES: Record<string, string> = { stream: 'channel', subject: 'topic', 'pm-with': 'dm', streams: 'channels', 'group-pm-with': 'dm-including' };

/** The viewer's flags: a row's bits, or read + historical for shared history without a row. */
function flagsExpr(shared: boolean) {
  return shared ? sql`coalesce(um.flags, ${sql.lit(HISTORICAL_FLAGS)})` : sql`um.flags`;
}

/** A flag test written with literals, so SQLite and PostgreSQL can match the partial indexes. */
function flagSet(shared: boolean, bits: number): Cond {
  return () => sql<SqlBool>`(${flagsExpr(shared)} & ${sql.lit(bits)}) <> 0`;
}
function flagClear(shared: boolean, bits: number): Cond {
  return () => sql<SqlBool>`(${flagsExpr(shared)} & ${sql.lit(bits)}) = 0`;
}

async function userIdByOperand(tx: Tx, realmId: number, operand: string | number): Promise<number> {
  if (typeof operand === 'number' && !isDbId(operand)) throw bad('unknown user');
  const q = tx.selectFrom('users').select('id').where('realm_id', '=', realmId);
  const row = typeof operand === 'number' ? await q.where('id', '=', operand).executeTakeFirst() : await q.where('email_key', '=', operand.trim().toLowerCase()).executeTakeFirst();
  if (!row) throw bad('unknown user');
  return row.id;
}

async function userIdsByOperand(tx: Tx, realmId: number, operand: string | number | number[]): Promise<number[]> {
  const parts: (string | number)[] = Array.isArray(operand) ? operand : typeof operand === 'number' ? [operand] : operand.split(',').filter((s) => s.trim());
  if (!parts.length) throw bad('unknown user');
  const out: number[] = [];
  for (const p of parts) out.push(await userIdByOperand(tx, realmId, p));
  return out;
}

async function streamByOperand(tx: Tx, realmId: number, operand: string | number | number[]) {
  if (Array.isArray(operand)) throw bad('unknown channel');
  if (typeof operand === 'number' && !isDbId(operand)) throw bad('unknown channel');
  const s = typeof operand === 'number' ? await streamById(tx, realmId, operand) : ((await streamByName(tx, realmId, operand)) ?? (/^\d+$/.test(operand) ? await streamById(tx, realmId, Number(operand)) : undefined));
  if (!s) throw bad('unknown channel');
  return s;
}

export async function planNarrow(tx: Tx, dialect: Dialect, realm: Realm, user: User, terms: NarrowTerm[]): Promise<NarrowPlan> {
  const canonical = terms.map((t) => ({ ...t, operator: ALIASES[t.operator] ?? t.operator }));
  // Decide the plan shape first: flag conditions differ between the two.
  let sharedCandidate = false;
  let sharedAllowed = true;
  const streams = new Map<number, Awaited<ReturnType<typeof streamByOperand>>>();
  for (const [i, t] of canonical.entries()) {
    if (t.operator === 'channel') {
      const s = await streamByOperand(tx, realm.id, t.operand);
      streams.set(i, s);
      if (t.negated) continue;
      sharedCandidate = true;
      if (!canAccessStreamHistory(user, s, await isSubscribed(tx, user.id, s.id))) sharedAllowed = false;
    } else if (t.operator === 'channels' && !t.negated) {
      sharedCandidate = true;
      if (user.role === Role.GUEST) sharedAllowed = false;
    }
  }
  const shared = sharedCandidate && sharedAllowed;
  // A channel term pins a channel's recipient, whose messages are all channel messages.
  const inChannel = canonical.some((t) => t.operator === 'channel' && !t.negated);
  const conditions: Cond[] = [];
  let hasSearch = false;
  let driver: string | null = null;
  let byRecipient = false;
  for (const [i, t] of canonical.entries()) {
    const cond = await termCondition(tx, dialect, realm, user, t, shared, streams.get(i), inChannel);
    if (t.operator === 'search') hasSearch = true;
    if (cond) conditions.push(t.negated ? (eb) => eb.not(cond(eb)) : cond);
    if ((t.operator === 'channel' || t.operator === 'dm') && !t.negated) byRecipient = true;
    if (t.operator === 'is' && !t.negated) {
      if (!shared && !driver) driver = DRIVERS[String(t.operand)] ?? null;
      // Unread rows never lie below the user's lowest floor, so history below it is never scanned.
      if (t.operand === 'unread') {
        const bound = await lowestUnreadId(tx, user.id);
        conditions.push((eb) => eb('m.id', '>=', bound));
      }
    }
  }
  return { shared, userId: user.id, realmId: realm.id, conditions, hasSearch, driver, byRecipient };
}

async function termCondition(
  tx: Tx,
  dialect: Dialect,
  realm: Realm,
  user: User,
  t: NarrowTerm,
  shared: boolean,
  stream: { recipient_id: number } | undefined,
  inChannel: boolean,
): Promise<Cond | null> {
  const operand = t.operand;
  switch (t.operator) {
    case 'channel':
      return (eb) => eb('m.recipient_id', '=', stream!.recipient_id);
    case 'channels':
      if (operand !== 'public') throw bad(`unknown 'channels' operand ${String(operand)}`);
      return (eb) => eb('m.recipient_id', 'in', eb.selectFrom('streams').select('recipient_id').where('realm_id', '=', realm.id).where('invite_only', '=', 0));
    case 'topic': {
      if (typeof operand !== 'string') throw bad('invalid topic');
      const key = topicKey(normalizeTopicInput(operand, realm));
      // Within a channel the type test is implied; leaving it out lets the (recipient_id, topic_key, id)
      // index answer the ID query alone, without reading each message row.
      if (inChannel) return (eb) => eb('m.topic_key', '=', key);
      return (eb) => eb.and([eb('m.type', '=', MESSAGE_TYPE_STREAM), eb('m.topic_key', '=', key)]);
    }
    case 'sender': {
      if (Array.isArray(operand)) throw bad('unknown user');
      const id = await userIdByOperand(tx, realm.id, operand);
      return (eb) => eb('m.sender_id', '=', id);
    }
    case 'dm': {
      const ids = await userIdsByOperand(tx, realm.id, operand);
      const recipient = await findDmRecipient(tx, realm.id, [...ids, user.id]);
      if (recipient === undefined) return () => sql<SqlBool>`1 = 0`;
      return (eb) => eb('m.recipient_id', '=', recipient);
    }
    case 'dm-including': {
      if (Array.isArray(operand)) throw bad('unknown user');
      const id = await userIdByOperand(tx, realm.id, operand);
      if (id === user.id) return (eb) => eb('m.type', '=', MESSAGE_TYPE_PRIVATE);
      return (eb) =>
        eb.and([
          eb('m.type', '=', MESSAGE_TYPE_PRIVATE),
          eb.exists(eb.selectFrom('user_messages as other').select('other.message_id').whereRef('other.message_id', '=', 'm.id').where('other.user_id', '=', id)),
        ]);
    }
    case 'is':
      return isCondition(String(operand), shared);
    case 'has':
      return hasCondition(String(operand));
    case 'id': {
      const id = typeof operand === 'number' ? operand : typeof operand === 'string' && /^\d+$/.test(operand.trim()) ? Number(operand) : NaN;
      if (!Number.isSafeInteger(id)) throw bad('invalid message ID');
      if (!isDbId(id)) return () => sql<SqlBool>`1 = 0`;
      return (eb) => eb('m.id', '=', id);
    }
    case 'search':
      if (typeof operand !== 'string') throw bad('invalid search');
      return () => searchCondition(dialect, operand);
    case 'near':
      // Only positions the client's view; it selects nothing.
      return null;
    default:
      throw bad('unknown operator');
  }
}

function isCondition(operand: string, shared: boolean): Cond {
  switch (operand) {
    case 'dm':
    case 'private':
      return (eb) => eb('m.type', '=', MESSAGE_TYPE_PRIVATE);
    case 'starred':
      return flagSet(shared, FLAG_BITS.starred);
    case 'unread':
      return flagClear(shared, FLAG_BITS.read);
    case 'mentioned':
      return flagSet(shared, MENTION_BITS);
    case 'alerted':
      return flagSet(shared, FLAG_BITS.has_alert_word);
    case 'resolved':
      return (eb) => eb.and([eb('m.type', '=', MESSAGE_TYPE_STREAM), eb('m.topic', 'like', RESOLVED_TOPIC_PREFIX + '%')]);
    default:
      throw bad(`unknown 'is' operand ${operand}`);
  }
}

function hasCondition(operand: string): Cond {
  switch (operand) {
    case 'link':
      return (eb) => eb('m.has_link', '=', 1);
    case 'image':
      return (eb) => eb('m.has_image', '=', 1);
    case 'attachment':
      return (eb) => eb('m.has_attachment', '=', 1);
    case 'reaction':
      return (eb) => eb.exists(eb.selectFrom('reactions as r').select('r.message_id').whereRef('r.message_id', '=', 'm.id'));
    default:
      throw bad(`unknown 'has' operand ${operand}`);
  }
}

/** The ID column to order and bound by: the driving table's, so the index walk stays in ID order. */
export const idColumn = (plan: NarrowPlan): string => (plan.driver ? 'um.message_id' : 'm.id');

/** messages `m` with the viewer's rows `um`, filtered by the plan; selects nothing yet. */
export function narrowQuery(tx: Tx, plan: NarrowPlan): MessageQuery {
  let q: MessageQuery;
  if (plan.shared) {
    q = tx.selectFrom('messages as m').leftJoin('user_messages as um', (j) => j.onRef('um.message_id', '=', 'm.id').on('um.user_id', '=', plan.userId));
  } else if (plan.driver) {
    q = tx
      .selectFrom('user_messages as um')
      .innerJoin('messages as m', 'm.id', 'um.message_id')
      .where('um.user_id', '=', plan.userId)
      .where(sql<SqlBool>`${sql.raw(plan.driver)}`);
  } else {
    q = tx.selectFrom('messages as m').innerJoin('user_messages as um', (j) => j.onRef('um.message_id', '=', 'm.id').on('um.user_id', '=', plan.userId));
  }
  if (!plan.driver && !plan.byRecipient) q = q.where('m.realm_id', '=', plan.realmId);
  for (const c of plan.conditions) q = q.where(c);
  return q;
}

/** The unread test for this plan's shape (first_unread anchors), bounded below by the user's lowest possible unread ID. */
export async function unreadCondition(tx: Tx, plan: NarrowPlan): Promise<Cond> {
  const bound = await lowestUnreadId(tx, plan.userId);
  const col = idColumn(plan);
  const clear = flagClear(plan.shared, FLAG_BITS.read);
  return (eb) => eb.and([clear(eb), eb(col, '>=', bound)]);
}
