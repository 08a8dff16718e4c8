// A user's own settings for channels they are subscribed to (color, muting, pinning, notifications)
// and the subscription update events to that user's clients.
import type { AppContext } from '../context.js';
import type { Realm, User } from '../store/schema.js';
import { badRequest } from '../core/api-error.js';
import { accessStreamById } from '../lib/streams/access.js';
import { NOTIFICATION_FIELDS } from '../presenters/subscription.js';
import { writeWithEvents, to, type Outgoing } from '../events/publish.js';
import { emailWatchersChanged } from '../lib/mail/watchers.js';

export const SUBSCRIPTION_PROPERTIES = ['color', 'is_muted', 'in_home_view', 'pin_to_top', ...NOTIFICATION_FIELDS] as const;
export type SubscriptionProperty = (typeof SUBSCRIPTION_PROPERTIES)[number];

export interface SubscriptionChange {
  streamId: number;
  property: string;
  value: unknown;
}

/** The original's color check: "#" and three to six hex digits. */
const COLOR_RE = /^#[0-9a-fA-F]{3,6}$/;

type Column = 'color' | 'is_muted' | 'pin_to_top' | (typeof NOTIFICATION_FIELDS)[number];

/** The stored column and value of one change; in_home_view is the inverse spelling of is_muted. */
function storedChange(c: SubscriptionChange): { column: Column; value: string | number } {
  if (!(SUBSCRIPTION_PROPERTIES as readonly string[]).includes(c.property)) throw badRequest(`Unknown subscription property: ${c.property}`);
  if (c.property === 'color') {
    if (typeof c.value !== 'string' || !COLOR_RE.test(c.value)) throw badRequest('color is not a valid hex color code');
    return { column: 'color', value: c.value };
  }
  if (typeof c.value !== 'boolean') throw badRequest(`${c.property} is not a boolean`);
  if (c.property === 'in_home_view') return { column: 'is_muted', value: c.value ? 0 : 1 };
  return { column: c.property as Column, value: c.value ? 1 : 0 };
}

/**
 * Applies the changes in order, all or none. Muting sends two events, in_home_view then is_muted,
 * as the original does since feature level 139. A change to the current value sends nothing.
 */
export async function doUpdateSubscriptionProperties(app: AppContext, realm: Realm, user: User, changes: SubscriptionChange[]): Promise<void> {
  await writeWithEvents(
    app,
    realm.id,
    async (tx) => {
      const events: Outgoing[] = [];
      for (const c of changes) {
        const { column, value } = storedChange(c);
        const { sub, subscribed } = await accessStreamById(tx, user, c.streamId);
        if (!sub || !subscribed) throw badRequest(`Not subscribed to channel ID ${c.streamId}`);
        const current = await tx.selectFrom('subscriptions').select(column).where('id', '=', sub.id).executeTakeFirstOrThrow();
        if ((current as Record<string, unknown>)[column] === value) continue;
        await tx.updateTable('subscriptions').set({ [column]: value }).where('id', '=', sub.id).execute();
        const event = (property: string, v: unknown) => to([user.id], { type: 'subscription', op: 'update', stream_id: c.streamId, property, value: v });
        if (column === 'is_muted') events.push(event('in_home_view', value === 0), event('is_muted', value === 1));
        else events.push(event(column, column === 'color' ? value : value === 1));
      }
      return events;
    },
    (events) => events,
  );
  emailWatchersChanged(app, realm.id);
}
