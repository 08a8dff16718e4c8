// PATCH /users/me/subscriptions: joins and leaves channels in one request (add, then delete), with
// per-channel colors for the joined ones.
import type { AppContext } from '../context.js';
import type { Realm, User } from '../store/schema.js';
import { canSeeStream, streamDoesNotExist, streamsByNames, subscriptionRow } from '../lib/streams/access.js';
import { checkStreamName } from '../lib/streams/names.js';
import { doSubscribe, type SubscribeResult } from './subscriptions-add.js';
import { doUnsubscribe } from './subscriptions-remove.js';
import { doUpdateSubscriptionProperties } from './subscription-properties.js';
import { checkColor } from '../lib/streams/administer.js';

export interface BulkSubscriptionInput {
  add: { name: string; color?: string; description?: string }[];
  delete: string[];
}

export interface BulkSubscriptionResult extends SubscribeResult {
  removed: string[];
  not_removed: string[];
}

/**
 * Everything that can refuse the request is checked before anything is written (names, colors and
 * the channels to leave), so a refused request changes nothing; the subscribing and the leaving
 * are then the same actions as POST and DELETE /users/me/subscriptions.
 */
export async function doBulkUpdateSubscriptions(app: AppContext, realm: Realm, user: User, input: BulkSubscriptionInput): Promise<BulkSubscriptionResult> {
  for (const a of input.add) {
    checkStreamName(a.name);
    if (a.color !== undefined) checkColor(a.color);
  }
  await app.store.read(async (tx) => {
    const found = await streamsByNames(tx, realm.id, input.delete);
    for (const name of input.delete) {
      const stream = found.get(name.trim().toLowerCase());
      const sub = stream ? await subscriptionRow(tx, user.id, stream.id) : undefined;
      if (!stream || !canSeeStream(user, stream, sub?.active === 1)) throw streamDoesNotExist(name);
    }
  });
  let added: SubscribeResult = { subscribed: {}, already_subscribed: {} };
  if (input.add.length) {
    added = await doSubscribe(app, realm, user, {
      subscriptions: input.add.map((a) => ({ name: a.name, description: a.description })),
      principals: null,
      authorizationErrorsFatal: true,
      announce: false,
      inviteOnly: false,
      isWebPublic: false,
      historyPublicToSubscribers: undefined,
      messageRetentionDays: undefined,
      topicsPolicy: undefined,
      groupSettings: {},
      isDefaultStream: false,
    });
    const colored = input.add.filter((a) => a.color !== undefined);
    if (colored.length) {
      const ids = await app.store.read((tx) => streamsByNames(tx, realm.id, colored.map((a) => a.name.trim())));
      const changes = colored.flatMap((a) => {
        const s = ids.get(a.name.trim().toLowerCase());
        return s ? [{ streamId: s.id, property: 'color', value: a.color }] : [];
      });
      if (changes.length) await doUpdateSubscriptionProperties(app, realm, user, changes);
    }
  }
  const removed = input.delete.length ? await doUnsubscribe(app, realm, user, { names: input.delete, principals: null }) : { removed: [], not_removed: [] };
  return { subscribed: added.subscribed, already_subscribed: added.already_subscribed, ...removed };
}
