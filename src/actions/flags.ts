// Personal message flags: POST /messages/flags, its narrow form, and the legacy mark-as-read calls.
import type { Transaction } from 'kysely';
import type { AppContext } from '../context.js';
import type { DB, Realm, User } from '../store/schema.js';
import { writeWithEvents, type Outgoing } from '../events/publish.js';
import { badRequest } from '../core/api-error.js';
import { EDITABLE_FLAGS, FLAG_BITS, type FlagName } from '../models/flags.js';
import { canAccessStreamHistory, HISTORICAL_FLAGS, invalidMessage, isDbId } from '../lib/messages/access.js';
import { dmParticipantsByRecipient } from '../lib/messages/recipients.js';
import { MENTION_BITS } from '../lib/messages/flags-sql.js';
import { emptyTopicDisplayName } from '../lib/realm-settings.js';
import { planNarrow } from '../lib/messages/narrow.js';
import { searchReady } from '../lib/messages/search-indexer.js';
import { fetchRange, type AnchorSpec, type RangeResult } from '../lib/messages/fetch.js';
import type { NarrowTerm } from '../models/narrow.js';
import type { Dialect } from '../store/dialect.js';
import { lockStreams, lowerFloors, raiseFloors, unreadRows } from '../lib/messages/unread.js';

export type FlagOp = 'add' | 'remove';

export function checkEditableFlag(flag: string): FlagName {
  if (!(flag in FLAG_BITS) || flag === 'is_private' || flag === 'unfloored') throw badRequest(`Invalid flag: '${flag}'`);
  if (!EDITABLE_FLAGS.includes(flag as FlagName)) throw badRequest(`Flag not editable: '${flag}'`);
  return flag as FlagName;
}

/** Which of the requested messages without a row the user may still see (through channel history). */
async function historicalAccess(tx: Transaction<DB>, user: User, ids: number[]): Promise<Set<number>> {
  const ok = new Set<number>();
  if (!ids.length) return ok;
  const rows = await tx
    .selectFrom('messages as m')
    .innerJoin('streams as s', 's.id', 'm.stream_id')
    .leftJoin('subscriptions as sub', (j) => j.onRef('sub.stream_id', '=', 's.id').on('sub.user_id', '=', user.id).on('sub.active', '=', 1))
    .select(['m.id', 's.invite_only', 's.history_public_to_subscribers', 'sub.id as sub_id'])
    .where('m.id', 'in', ids)
    .where('m.realm_id', '=', user.realm_id)
    .execute();
  for (const r of rows) if (canAccessStreamHistory(user, r, r.sub_id !== null)) ok.add(r.id);
  return ok;
}

/** Details a client needs to put messages marked unread back into its unread_msgs. */
async function unreadDetails(tx: Transaction<DB>, user: User, ids: number[], bitsById: Map<number, number>): Promise<Record<string, Record<string, unknown>>> {
  const out: Record<string, Record<string, unknown>> = {};
  if (!ids.length) return out;
  const rows = await tx.selectFrom('messages').select(['id', 'type', 'stream_id', 'topic', 'recipient_id']).where('id', 'in', ids).execute();
  const participants = await dmParticipantsByRecipient(
    tx,
    rows.filter((r) => r.stream_id === null).map((r) => r.recipient_id),
  );
  for (const r of rows) {
    const d: Record<string, unknown> =
      r.stream_id !== null ? { type: 'stream', stream_id: r.stream_id, topic: r.topic } : { type: 'private', user_ids: (participants.get(r.recipient_id) ?? []).filter((u) => u !== user.id) };
    if ((bitsById.get(r.id) ?? 0) & MENTION_BITS) d.mentioned = true;
    out[String(r.id)] = d;
  }
  return out;
}

/** Changes one flag on the listed messages inside a transaction; returns the changed IDs and the event. */
export async function updateFlagsInTx(tx: Transaction<DB>, dialect: Dialect, realm: Realm, user: User, ids: number[], op: FlagOp, flag: FlagName, strict: boolean): Promise<{ changed: number[]; outgoing: Outgoing[] }> {
  const bit = FLAG_BITS[flag];
  if (strict && !ids.every(isDbId)) throw invalidMessage();
  const unique = [...new Set(ids.filter(isDbId))];
  if (flag === 'read' && dialect === 'postgres' && unique.length) {
    // Lock the channels before reading or writing rows: concurrent read-marks then queue instead of
    // deadlocking on overlapping rows, and floors are computed under the lock (lib/messages/unread.ts).
    const streams = await tx.selectFrom('messages').select('stream_id').distinct().where('id', 'in', unique).where('stream_id', 'is not', null).execute();
    await lockStreams(
      tx,
      dialect,
      streams.map((r) => r.stream_id!),
      'update',
    );
  }
  const rows = unique.length ? await tx.selectFrom('user_messages').select(['message_id', 'flags']).where('user_id', '=', user.id).where('message_id', 'in', unique).execute() : [];
  const bitsById = new Map(rows.map((r) => [r.message_id, r.flags]));
  const withoutRow = unique.filter((id) => !bitsById.has(id));
  const visible = await historicalAccess(tx, user, withoutRow);
  if (strict && withoutRow.some((id) => !visible.has(id))) throw invalidMessage();
  const changed = rows.filter((r) => ((r.flags & bit) !== 0) !== (op === 'add')).map((r) => r.message_id);
  if (changed.length) {
    await tx
      .updateTable('user_messages')
      .set((eb) => ({ flags: op === 'add' ? eb('flags', '|', bit) : eb('flags', '&', ~bit) }))
      .where('user_id', '=', user.id)
      .where('message_id', 'in', changed)
      .execute();
  }
  if (flag === 'read' && changed.length) await adjustFloors(tx, dialect, user, changed, op);
  // Starring channel history adds the message to the user's own history; other flags need a row.
  if (flag === 'starred' && op === 'add' && visible.size) {
    const fresh = [...visible];
    await tx
      .insertInto('user_messages')
      .values(fresh.map((id) => ({ user_id: user.id, message_id: id, flags: HISTORICAL_FLAGS | bit })))
      .execute();
    changed.push(...fresh);
  }
  changed.sort((a, b) => a - b);
  const event: Record<string, unknown> = { type: 'update_message_flags', op, operation: op, flag, messages: changed, all: false };
  if (flag === 'read' && op === 'remove') {
    event.message_details = await unreadDetails(tx, user, changed, bitsById);
    event.__empty_topic_name = emptyTopicDisplayName(realm);
  }
  return { changed, outgoing: [{ users: [user.id], event: event as { type: string } }] };
}

/** Keeps the user's unread floors true: marking read may raise them, marking unread lowers them. */
async function adjustFloors(tx: Transaction<DB>, dialect: Dialect, user: User, ids: number[], op: FlagOp): Promise<void> {
  const rows = await tx.selectFrom('messages').select(['id', 'stream_id']).where('id', 'in', ids).where('stream_id', 'is not', null).execute();
  if (!rows.length) return;
  if (op === 'add') await raiseFloors(tx, dialect, user.id, rows.map((r) => r.stream_id!));
  else await lowerFloors(tx, dialect, rows.map((r) => ({ userId: user.id, streamId: r.stream_id!, messageId: r.id })));
}

export async function doUpdateFlags(app: AppContext, realm: Realm, user: User, ids: number[], op: FlagOp, flag: FlagName): Promise<number[]> {
  const { result } = await writeWithEvents(
    app,
    realm.id,
    (tx) => updateFlagsInTx(tx, app.store.dialect, realm, user, ids, op, flag, true),
    (result) => result.outgoing,
  );
  return result.changed;
}

/** Marks read every unread message of the user in a scope (everything, a channel, or a topic). */
export async function doMarkRead(app: AppContext, realm: Realm, user: User, scope: { recipientId?: number; topicKey?: string }): Promise<number[]> {
  const { result } = await writeWithEvents(app, realm.id, async (tx) => {
    const ids = (await unreadRows(tx, app.store.dialect, user.id, scope)).map((r) => r.message_id);
    return updateFlagsInTx(tx, app.store.dialect, realm, user, ids, 'add', 'read', false);
  }, (result) => result.outgoing);
  return result.changed;
}

export interface NarrowFlagsInput {
  narrow: NarrowTerm[];
  anchor: AnchorSpec;
  numBefore: number;
  numAfter: number;
  includeAnchor: boolean;
  op: FlagOp;
  flag: FlagName;
}

/** Changes a flag on a range of a narrow; the range is chosen and updated in one transaction. */
export async function doUpdateFlagsForNarrow(app: AppContext, realm: Realm, user: User, input: NarrowFlagsInput): Promise<{ range: RangeResult; changed: number[] }> {
  await searchReady(app.search, input.narrow);
  const { result } = await writeWithEvents(app, realm.id, async (tx) => {
    const plan = await planNarrow(tx, app.store.dialect, realm, user, input.narrow);
    const range = await fetchRange(tx, plan, input.anchor, input.numBefore, input.numAfter, input.includeAnchor);
    const { changed, outgoing } = await updateFlagsInTx(tx, app.store.dialect, realm, user, range.ids, input.op, input.flag, false);
    return { range, changed, outgoing };
  }, (result) => result.outgoing);
  return { range: result.range, changed: result.changed };
}
