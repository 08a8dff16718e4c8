// Setting a user's status (their own, or an administrator for someone), with user_status events to
// everyone who may see the user.
import type { AppContext } from '../context.js';
import type { Realm, User } from '../store/schema.js';
import { badRequest } from '../core/api-error.js';
import { isAdminRole } from '../models/roles.js';
import { checkStatusInput, type StatusInput } from '../lib/user-status.js';
import { accessUserById, activeUserIds } from '../lib/users.js';
import { viewersWithAccess } from '../lib/user-access.js';
import { writeWithEvents, to } from '../events/publish.js';
import { doUpdateSettings } from './settings.js';

/** Changes only what is given; `away` (own status only) is the legacy way to turn presence_enabled off. */
export async function doUpdateUserStatus(app: AppContext, realm: Realm, actor: User, targetId: number, input: StatusInput): Promise<void> {
  if (targetId !== actor.id && !isAdminRole(actor.role)) throw badRequest('Insufficient permission');
  const now = app.clock.now();
  const { result } = await writeWithEvents(
    app,
    realm.id,
    async (tx) => {
      // A deactivated user has no status anyone sees (register lists active users only): "User is deactivated", as the original.
      const target = targetId === actor.id ? actor : await accessUserById(tx, realm.id, targetId);
      const change = await checkStatusInput(tx, realm, input);
      const set: Record<string, string> = {};
      if (change.text !== undefined) set.status_text = change.text;
      if (change.emoji) Object.assign(set, { emoji_name: change.emoji.name, emoji_code: change.emoji.code, reaction_type: change.emoji.type });
      if (!Object.keys(set).length) return { change, events: [] };
      await tx
        .insertInto('user_status')
        .values({ user_id: target.id, realm_id: realm.id, timestamp: now, ...set })
        .onConflict((oc) => oc.column('user_id').doUpdateSet({ timestamp: now, ...set }))
        .execute();
      const viewers = await viewersWithAccess(tx, realm, target.id, await activeUserIds(tx, realm.id));
      return { change, events: [to(viewers, { type: 'user_status', user_id: target.id, ...set })] };
    },
    (r) => r.events,
  );
  // The settings change sends its own user_settings and user_status (away) events.
  if (result.change.away !== undefined) await doUpdateSettings(app, realm, actor, new Map([['presence_enabled', !result.change.away]]), null);
}
