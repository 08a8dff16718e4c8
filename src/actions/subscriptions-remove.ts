// DELETE /users/me/subscriptions: unsubscribes principals, with subscription remove, stream delete
// (for users who can no longer see the channel), peer_remove, and read-marking events.
import type { Transaction } from 'kysely';
import type { AppContext } from '../context.js';
import type { DB, Realm, Stream, User } from '../store/schema.js';
import { badRequest } from '../core/api-error.js';
import { Role } from '../models/roles.js';
import { canSeeStream, streamDoesNotExist, streamPeerAudience, streamsByNames, subscriptionRow } from '../lib/streams/access.js';
import { hasStreamPermission } from '../lib/streams/permissions.js';
import { resolvePrincipals } from '../lib/streams/principals.js';
import { writeWithEvents, to, type Outgoing } from '../events/publish.js';
import { unreadRows } from '../lib/messages/unread.js';
import { accessChangeEvents, accessSnapshot } from '../lib/user-access.js';
import { updateFlagsInTx } from './flags.js';

export interface UnsubscribeInput {
  names: string[];
  principals: number[] | string[] | null;
}

/** Whether the caller may remove `target` from the channel (removing oneself is always allowed). */
/** The caller can already see the channel (checked by the lookup). */
async function canRemove(tx: Transaction<DB>, caller: User, target: User, stream: Stream): Promise<boolean> {
  if (target.id === caller.id || caller.role <= Role.ADMINISTRATOR) return true;
  if (target.is_bot && target.bot_owner_id === caller.id) return true;
  return hasStreamPermission(tx, caller, stream, 'can_remove_subscribers_group');
}

export async function doUnsubscribe(app: AppContext, realm: Realm, caller: User, input: UnsubscribeInput): Promise<{ removed: string[]; not_removed: string[] }> {
  const { result } = await writeWithEvents(
    app,
    realm.id,
    async (tx) => {
      const principals = input.principals === null || input.principals.length === 0 ? [caller] : await resolvePrincipals(tx, realm.id, input.principals);
      // Restricted users (can_access_all_users_group) may lose access to former channel peers.
      const access = await accessSnapshot(tx, realm);
      const found = await streamsByNames(tx, realm.id, input.names);
      const streams: Stream[] = [];
      const seen = new Set<number>();
      for (const name of input.names) {
        const stream = found.get(name.trim().toLowerCase());
        // Channels the caller cannot see are reported as missing, so their existence does not leak.
        const callerSub = stream ? await subscriptionRow(tx, caller.id, stream.id) : undefined;
        if (!stream || !canSeeStream(caller, stream, callerSub?.active === 1)) throw streamDoesNotExist(name);
        if (seen.has(stream.id)) continue;
        seen.add(stream.id);
        streams.push(stream);
      }
      for (const stream of streams) {
        for (const p of principals) {
          if (!(await canRemove(tx, caller, p, stream))) throw badRequest('Insufficient permission');
        }
      }

      const removed: string[] = [];
      const notRemoved: string[] = [];
      const removedBy = new Map<number, { name: string; stream_id: number }[]>(); // user → channels left
      const peerEvents: Outgoing[] = [];
      const lostSight = new Map<number, number[]>(); // user → channels no longer visible
      const readEvents: Outgoing[] = [];
      for (const stream of streams) {
        const gone: number[] = [];
        for (const p of principals) {
          const row = await subscriptionRow(tx, p.id, stream.id);
          if (!row || row.active !== 1) {
            notRemoved.push(stream.name);
            continue;
          }
          // As the original: leaving a channel marks its unread messages read for the leaver.
          const unread = await unreadRows(tx, app.store.dialect, p.id, { recipientId: stream.recipient_id });
          if (unread.length) {
            const marked = await updateFlagsInTx(tx, app.store.dialect, realm, p, unread.map((r) => r.message_id), 'add', 'read', false);
            if (marked.changed.length) readEvents.push(...marked.outgoing);
          }
          await tx.updateTable('subscriptions').set({ active: 0 }).where('id', '=', row.id).execute();
          removed.push(stream.name);
          gone.push(p.id);
          (removedBy.get(p.id) ?? removedBy.set(p.id, []).get(p.id)!).push({ name: stream.name, stream_id: stream.id });
          if (!canSeeStream(p, stream, false)) (lostSight.get(p.id) ?? lostSight.set(p.id, []).get(p.id)!).push(stream.id);
        }
        if (!gone.length) continue;
        // Everyone who can still see the subscriber list, the removed users who still can included.
        const audience = await streamPeerAudience(tx, stream);
        const stillSee = principals.filter((p) => gone.includes(p.id) && canSeeStream(p, stream, false)).map((p) => p.id);
        peerEvents.push(to([...audience, ...stillSee], { type: 'subscription', op: 'peer_remove', stream_ids: [stream.id], user_ids: gone.sort((a, b) => a - b) }));
      }
      // Order: each user's remove, then stream delete for lost channels, then peer_remove to observers.
      const ordered: Outgoing[] = [];
      for (const [userId, subs] of removedBy) {
        ordered.push(to([userId], { type: 'subscription', op: 'remove', subscriptions: subs.sort((a, b) => a.stream_id - b.stream_id) }));
      }
      for (const [userId, ids] of lostSight) {
        ids.sort((a, b) => a - b);
        ordered.push(to([userId], { type: 'stream', op: 'delete', streams: ids.map((id) => ({ stream_id: id })), stream_ids: ids }));
      }
      ordered.push(...peerEvents, ...readEvents, ...(await accessChangeEvents(tx, realm, access)));
      return { res: { removed, not_removed: notRemoved }, events: ordered };
    },
    (r) => r.events,
  );
  return result.res;
}
