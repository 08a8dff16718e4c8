// Changing a user's avatar (upload, or back to the organization's default) with the realm_user avatar event.
import type { AppContext } from '../context.js';
import type { Realm, User } from '../store/schema.js';
import { badRequest } from '../core/api-error.js';
import { isAdminRole } from '../models/roles.js';
import { realmSettings } from '../lib/realm-settings.js';
import { defaultAvatarSource, resizeAvatar, type AvatarKind } from '../lib/avatars.js';
import { avatarFileKey } from '../lib/storage/keys.js';
import { dropInaccessibleRecipients } from '../lib/user-access.js';
import { avatarPerson } from '../presenters/avatar.js';
import { publishCommitted, to, type Outgoing } from '../events/publish.js';

const KINDS: AvatarKind[] = ['standard', 'medium'];

function checkAvatarChangesAllowed(realm: Realm, user: User): void {
  if (realmSettings(realm).avatar_changes_disabled === true && !isAdminRole(user.role)) throw badRequest('Avatar changes are disabled in this organization.');
}

/** Stores the image at both sizes and makes it the user's avatar (source U, next version). */
export async function doUploadAvatar(app: AppContext, realm: Realm, user: User, data: Buffer): Promise<User> {
  checkAvatarChangesAllowed(realm, user);
  const limit = app.config.maxAvatarFileSizeMib;
  if (data.length > limit * 1024 * 1024) throw badRequest(`Uploaded file is larger than the allowed limit of ${limit} MiB`);
  const images = await resizeAvatar(data);
  return setAvatar(app, realm, user, 'U', images);
}

/** Back to the organization's default source; the uploaded files are removed. */
export async function doDeleteAvatar(app: AppContext, realm: Realm, user: User): Promise<User> {
  checkAvatarChangesAllowed(realm, user);
  return setAvatar(app, realm, user, defaultAvatarSource(realm), null);
}

async function setAvatar(app: AppContext, realm: Realm, user: User, source: string, images: Record<AvatarKind, Buffer> | null): Promise<User> {
  const { result, stamp } = await app.store.write(async (tx) => {
    // The row is read under the write (FOR UPDATE on PostgreSQL): concurrent changes get distinct versions.
    let q = tx.selectFrom('users').selectAll().where('id', '=', user.id);
    if (app.store.dialect === 'postgres') q = q.forUpdate();
    const before = await q.executeTakeFirstOrThrow();
    const version = before.avatar_version + 1;
    // Files are keyed by version, so writing them before the commit never replaces what is served now;
    // a rolled-back change leaves (local store) unreferenced files that the next upload of that version
    // overwrites, or (database store) nothing, the rows rolling back with it.
    if (images) for (const k of KINDS) await app.files.put(avatarFileKey(realm.id, user.id, version, k), images[k], 'image/png', tx);
    await tx.updateTable('users').set({ avatar_source: source, avatar_version: version }).where('id', '=', user.id).execute();
    const after: User = { ...before, avatar_source: source, avatar_version: version };
    const viewers = await tx.selectFrom('users').select('id').where('realm_id', '=', realm.id).where('is_active', '=', 1).execute();
    const events: Outgoing[] = [to(viewers.map((v) => v.id), { type: 'realm_user', op: 'update', person: avatarPerson(after) })];
    await dropInaccessibleRecipients(tx, realm, events);
    return { before, after, events };
  });
  publishCommitted(app, realm.id, stamp, result.events);
  app.caches.userChanged(user.id);
  const { before } = result;
  if (before.avatar_source === 'U') for (const k of KINDS) await app.files.delete(avatarFileKey(realm.id, user.id, before.avatar_version, k));
  return result.after;
}
