// Pieces the message actions share: channel first_message_id upkeep and per-flag event grouping.
import type { Transaction } from 'kysely';
import type { DB, Stream } from '../store/schema.js';
import type { EventBody } from '../events/types.js';
import type { Outgoing } from '../events/publish.js';
import { flagNames } from '../models/flags.js';
import { streamPeerAudience } from '../lib/streams/access.js';

/** The stream-update event that tells clients a channel's first message changed. */
export function firstMessageEvent(stream: Pick<Stream, 'id' | 'name'>, value: number | null): EventBody {
  return { type: 'stream', op: 'update', property: 'first_message_id', value, stream_id: stream.id, name: stream.name };
}

/** Recomputes first_message_id of channels whose messages moved or vanished; events for the changed ones. */
export async function refreshFirstMessageIds(tx: Transaction<DB>, streamIds: number[]): Promise<Outgoing[]> {
  const out: Outgoing[] = [];
  for (const id of [...new Set(streamIds)]) {
    const stream = await tx.selectFrom('streams').selectAll().where('id', '=', id).executeTakeFirst();
    if (!stream) continue;
    const row = await tx.selectFrom('messages').select((eb) => eb.fn.min<number>('id').as('first')).where('recipient_id', '=', stream.recipient_id).executeTakeFirst();
    const first = row?.first === null || row?.first === undefined ? null : Number(row.first);
    if (first === stream.first_message_id) continue;
    await tx.updateTable('streams').set({ first_message_id: first }).where('id', '=', id).execute();
    out.push({ users: await streamPeerAudience(tx, stream), event: firstMessageEvent(stream, first) });
  }
  return out;
}

/** One notice per distinct flag set, each event carrying its recipients' `flags`. */
export function byFlags(userFlags: Map<number, number>, users: Iterable<number>, event: EventBody): Outgoing[] {
  const groups = new Map<number, number[]>();
  for (const u of new Set(users)) {
    const bits = userFlags.get(u) ?? 0;
    let g = groups.get(bits);
    if (!g) groups.set(bits, (g = []));
    g.push(u);
  }
  return [...groups].map(([bits, ids]) => ({ users: ids, event: { ...event, flags: flagNames(bits) } }));
}
