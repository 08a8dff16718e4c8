// Recording a user's presence; a presence event goes out only when someone comes online or becomes active.
import type { AppContext } from '../context.js';
import type { Realm, User } from '../store/schema.js';
import { writeWithEvents, type Outgoing } from '../events/publish.js';
import { effectiveUserSettings } from '../models/user-settings.js';
import { activeUserIds } from '../lib/users.js';
import { legacyClient, modernPresence, OFFLINE_THRESHOLD_SECS } from '../lib/presence.js';

export type PresenceStatus = 'active' | 'idle';

export async function doUpdatePresence(app: AppContext, realm: Realm, user: User, status: PresenceStatus): Promise<void> {
  // Invisible mode: nothing is recorded, so the user ages out of everyone's presence data.
  if (effectiveUserSettings(user.settings).presence_enabled === false) return;
  const now = app.clock.now();
  await writeWithEvents(
    app,
    realm.id,
    async (tx) => {
      const old = await tx.selectFrom('user_presence').selectAll().where('user_id', '=', user.id).executeTakeFirst();
      const row = { last_connected_time: now, last_active_time: status === 'active' ? now : (old?.last_active_time ?? null) };
      // Refreshing an online user's timestamps is left to polling; only news worth showing at once is an event.
      const cameOnline = !old || old.last_connected_time + OFFLINE_THRESHOLD_SECS < now;
      const becameActive = status === 'active' && (old?.last_active_time == null || old.last_active_time + OFFLINE_THRESHOLD_SECS < now);
      await tx.insertInto('presence_sequences').values({ realm_id: realm.id, last_update_id: 0 }).onConflict((oc) => oc.column('realm_id').doNothing()).execute();
      const seq = await tx
        .updateTable('presence_sequences')
        .set((eb) => ({ last_update_id: eb('last_update_id', '+', 1) }))
        .where('realm_id', '=', realm.id)
        .returning('last_update_id')
        .executeTakeFirstOrThrow();
      if (old) await tx.updateTable('user_presence').set({ ...row, last_update_id: seq.last_update_id }).where('user_id', '=', user.id).execute();
      else await tx.insertInto('user_presence').values({ user_id: user.id, realm_id: realm.id, ...row, last_update_id: seq.last_update_id }).execute();
      const events: Outgoing[] = [];
      if (cameOnline || becameActive) {
        events.push({
          users: await activeUserIds(tx, realm.id),
          event: { type: 'presence', presences: { [String(user.id)]: modernPresence(row) } },
          withoutCapability: {
            capability: 'simplified_presence_events',
            events: [{ type: 'presence', user_id: user.id, email: user.email, server_timestamp: now, presence: { website: legacyClient(row) } }],
          },
        });
      }
      return events;
    },
    (events) => events,
  );
}
