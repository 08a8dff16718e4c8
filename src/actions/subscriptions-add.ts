// POST /users/me/subscriptions: creates missing channels, subscribes the principals, and sends
// stream create, subscription add and peer_add events.
import { announceNewChannels } from './announcements.js';
import type { Transaction } from 'kysely';
import type { AppContext } from '../context.js';
import type { DB, Realm, Stream, Subscription, User } from '../store/schema.js';
import { badRequest } from '../core/api-error.js';
import { Role } from '../models/roles.js';
import { effectiveUserSettings } from '../models/user-settings.js';
import { pickStreamColor } from '../lib/streams-create.js';
import { canAccessContent, canSeeStream, streamPeerAudience, streamsByNames } from '../lib/streams/access.js';
import { checkStreamDescription, checkStreamName, renderStreamDescription } from '../lib/streams/names.js';
import { hasStreamPermission } from '../lib/streams/permissions.js';
import { hasRealmPermission } from '../lib/groups.js';
import { resolvePrincipals } from '../lib/streams/principals.js';
import { streamDicts } from '../lib/streams/dicts.js';
import { subscribersByStream } from '../lib/streams/subscribers.js';
import { notificationDefaults, presentSubscription } from '../presenters/subscription.js';
import { writeWithEvents, to, type Outgoing } from '../events/publish.js';
import { emailWatchersChanged } from '../lib/mail/watchers.js';
import { checkCanCreateStreams, createStream, type NewStreamSettings } from './streams-create.js';
import { lockStreams, nextMessageId } from '../lib/messages/unread.js';
import { accessChangeEvents, accessSnapshot } from '../lib/user-access.js';

export interface SubscribeInput extends NewStreamSettings {
  subscriptions: { name: string; description?: string }[];
  /** null: the caller. */
  principals: number[] | string[] | null;
  authorizationErrorsFatal: boolean;
  /** The notification bot announces new public channels in new_stream_announcements_stream_id. */
  announce: boolean;
}

export interface SubscribeResult {
  subscribed: Record<string, string[]>;
  already_subscribed: Record<string, string[]>;
  unauthorized?: string[];
}

/** Whether the caller may subscribe themselves to an existing channel. */
async function canJoin(tx: Transaction<DB>, user: User, stream: Stream, subscribed: boolean): Promise<boolean> {
  if (canAccessContent(user, stream, subscribed)) return true;
  if (stream.invite_only && user.role <= Role.ADMINISTRATOR) return true;
  for (const setting of ['can_subscribe_group', 'can_add_subscribers_group', 'can_administer_channel_group']) {
    if (await hasStreamPermission(tx, user, stream, setting)) return true;
  }
  return false;
}

/** Whether the caller may subscribe other users to an existing channel. */
export async function canAddOthers(tx: Transaction<DB>, realm: Realm, user: User, stream: Stream): Promise<boolean> {
  if (user.role <= Role.ADMINISTRATOR) return true;
  if (await hasStreamPermission(tx, user, stream, 'can_add_subscribers_group')) return true;
  if (await hasStreamPermission(tx, user, stream, 'can_administer_channel_group')) return true;
  // The organization-wide permission covers channels whose content the caller can reach.
  const sub = await tx.selectFrom('subscriptions').select('active').where('user_id', '=', user.id).where('stream_id', '=', stream.id).executeTakeFirst();
  return canAccessContent(user, stream, sub?.active === 1) && (await hasRealmPermission(tx, user, realm, 'can_add_subscribers_group'));
}

export async function doSubscribe(app: AppContext, realm: Realm, caller: User, input: SubscribeInput): Promise<SubscribeResult> {
  const now = app.clock.now();
  const { result } = await writeWithEvents(
    app,
    realm.id,
    async (tx) => {
      const principals = input.principals === null || input.principals.length === 0 ? [caller] : await resolvePrincipals(tx, realm.id, input.principals);
      const others = principals.some((p) => p.id !== caller.id);
      // Restricted users (can_access_all_users_group) may gain access to new channel peers.
      const access = await accessSnapshot(tx, realm);

      // Requested channels, validated and de-duplicated by their case-insensitive name.
      const wanted = new Map<string, { name: string; description: string }>();
      for (const s of input.subscriptions) {
        const name = checkStreamName(s.name);
        const key = name.toLowerCase();
        if (!wanted.has(key)) wanted.set(key, { name, description: checkStreamDescription(s.description ?? '') });
      }
      const existing = await streamsByNames(tx, realm.id, [...wanted.keys()]);
      const missing = [...wanted.entries()].filter(([k]) => !existing.has(k));
      if (missing.length) await checkCanCreateStreams(tx, realm, caller, input);

      const unauthorized: string[] = [];
      const targets: Stream[] = [];
      const created = new Set<number>();
      for (const [key] of wanted) {
        const stream = existing.get(key);
        if (!stream) continue;
        const sub = await tx.selectFrom('subscriptions').select('active').where('user_id', '=', caller.id).where('stream_id', '=', stream.id).executeTakeFirst();
        if (!(await canJoin(tx, caller, stream, sub?.active === 1))) {
          if (input.authorizationErrorsFatal) throw badRequest(`Unable to access channel (${stream.name}).`);
          unauthorized.push(stream.name);
          continue;
        }
        if (others && !(await canAddOthers(tx, realm, caller, stream))) throw badRequest('Insufficient permission');
        targets.push(stream);
      }
      for (const [, spec] of missing) {
        const stream = await createStream(tx, realm, caller, { ...spec, renderedDescription: renderStreamDescription(spec.description) }, input, now);
        created.add(stream.id);
        targets.push(stream);
      }
      // Objects as they were before anyone subscribed: what stream create events describe.
      const before = await streamDicts(tx, targets);

      const subscribed: Record<string, string[]> = {};
      const already: Record<string, string[]> = {};
      const newSubs = new Map<number, User[]>(); // channel ID → newly subscribed users
      const gainedSight = new Map<number, number[]>(); // channel ID → users who could not see it before
      const rowsByUser = new Map<number, Subscription[]>();
      const userRowCount = new Map<number, number>();
      // New subscriptions have no unread history: their floor starts after every message so far.
      await lockStreams(tx, app.store.dialect, targets.map((t) => t.id), 'update');
      const floor = await nextMessageId(tx);
      for (const stream of targets) {
        for (const p of principals) {
          const row = await tx.selectFrom('subscriptions').selectAll().where('user_id', '=', p.id).where('stream_id', '=', stream.id).executeTakeFirst();
          if (row?.active === 1) {
            (already[String(p.id)] ??= []).push(stream.name);
            continue;
          }
          if (!created.has(stream.id) && !canSeeStream(p, stream, false)) (gainedSight.get(stream.id) ?? gainedSight.set(stream.id, []).get(stream.id)!).push(p.id);
          let fresh: Subscription;
          if (row) {
            // Rejoining keeps the settings the user had for the channel.
            await tx.updateTable('subscriptions').set({ active: 1 }).where('id', '=', row.id).execute();
            fresh = { ...row, active: 1 };
          } else {
            if (!userRowCount.has(p.id)) {
              const c = await tx.selectFrom('subscriptions').select((eb) => eb.fn.countAll<number>().as('n')).where('user_id', '=', p.id).executeTakeFirstOrThrow();
              userRowCount.set(p.id, Number(c.n));
            }
            const n = userRowCount.get(p.id)!;
            userRowCount.set(p.id, n + 1);
            fresh = await tx
              .insertInto('subscriptions')
              .values({ user_id: p.id, stream_id: stream.id, active: 1, is_muted: 0, pin_to_top: 0, color: pickStreamColor(n), unread_floor: floor })
              .returningAll()
              .executeTakeFirstOrThrow();
          }
          (subscribed[String(p.id)] ??= []).push(stream.name);
          (newSubs.get(stream.id) ?? newSubs.set(stream.id, []).get(stream.id)!).push(p);
          (rowsByUser.get(p.id) ?? rowsByUser.set(p.id, []).get(p.id)!).push(fresh);
        }
      }

      const events: Outgoing[] = [];
      const changed = targets.filter((s) => newSubs.has(s.id));
      const after = await streamDicts(tx, changed);
      const subscribers = await subscribersByStream(tx, changed.map((s) => s.id));
      const audiences = new Map<number, number[]>();
      for (const s of changed) audiences.set(s.id, await streamPeerAudience(tx, s));

      // 1. stream create: everyone who can see a new channel; for existing ones, those who just gained sight.
      for (const s of targets) {
        const users = created.has(s.id) ? (audiences.get(s.id) ?? (await streamPeerAudience(tx, s))) : (gainedSight.get(s.id) ?? []);
        if (users.length) events.push(to(users, { type: 'stream', op: 'create', streams: [before.get(s.id)] }));
      }
      // 2. subscription add: each newly subscribed user gets their new subscriptions, sorted by channel ID.
      for (const p of principals) {
        const rows = rowsByUser.get(p.id);
        if (!rows) continue;
        rows.sort((a, b) => a.stream_id - b.stream_id);
        const subs = rows.map((r) => presentSubscription(after.get(r.stream_id)!, r, { subscribers: subscribers.get(r.stream_id) }));
        events.push(to([p.id], { type: 'subscription', op: 'add', subscriptions: subs, __notification_defaults: notificationDefaults(effectiveUserSettings(p.settings)) }));
      }
      // 3. peer_add: everyone else who may see the subscriber list. The new subscribers are left out:
      // their subscription add already lists every subscriber and the count, so a peer_add would
      // count them twice in clients that keep only counts.
      for (const s of changed) {
        const added = newSubs.get(s.id)!.map((u) => u.id).sort((a, b) => a - b);
        const others = audiences.get(s.id)!.filter((id) => !added.includes(id));
        events.push(to(others, { type: 'subscription', op: 'peer_add', stream_ids: [s.id], user_ids: added }));
      }
      // The users' data first, so clients know everyone the subscription events name.
      events.unshift(...(await accessChangeEvents(tx, realm, access)));
      const res: SubscribeResult = { subscribed, already_subscribed: already };
      if (!input.authorizationErrorsFatal) res.unauthorized = unauthorized;
      return { res, events, createdStreams: targets.filter((t) => created.has(t.id)) };
    },
    (r) => r.events,
  );
  emailWatchersChanged(app, realm.id);
  if (input.announce && result.createdStreams.length) await announceNewChannels(app, realm, caller, result.createdStreams);
  return result.res;
}
