// Adding and deactivating custom emoji: the image file, the row, and realm_emoji events in both forms.
import { randomBytes } from 'node:crypto';
import type { AppContext } from '../context.js';
import type { Realm, User } from '../store/schema.js';
import { ApiError, badRequest } from '../core/api-error.js';
import { publishCommitted } from '../events/publish.js';
import { activeUserIds } from '../lib/users.js';
import { hasRealmPermission } from '../lib/groups.js';
import { Role } from '../models/roles.js';
import { emojiFileKey } from '../lib/storage/keys.js';
import { CONTENT_TYPES, imageExtension, isAnimatedGif, MAX_EMOJI_FILE_BYTES, presentRealmEmoji, realmEmojiDict } from '../lib/realm-emoji.js';

export async function doAddRealmEmoji(app: AppContext, realm: Realm, user: User, name: string, data: Buffer): Promise<void> {
  if (data.length > MAX_EMOJI_FILE_BYTES) throw badRequest(`Uploaded file is larger than the allowed limit of ${MAX_EMOJI_FILE_BYTES / 1024 / 1024} MiB`);
  const ext = imageExtension(data);
  // The file is written first under a fresh name: a failed transaction leaves no row pointing nowhere.
  const fileName = `${Date.now()}-${randomBytes(4).toString('hex')}.${ext}`;
  const key = emojiFileKey(realm.id, fileName);
  await app.files.put(key, data, CONTENT_TYPES[ext]);
  try {
    const { result, stamp } = await app.store.write(async (tx) => {
      if (!(await hasRealmPermission(tx, user, realm, 'can_add_custom_emoji_group'))) throw badRequest('Insufficient permission');
      const taken = await tx.selectFrom('realm_emoji').select('id').where('realm_id', '=', realm.id).where('name', '=', name).where('deactivated', '=', 0).executeTakeFirst();
      if (taken) throw badRequest('A custom emoji with this name already exists.');
      const row = await tx
        .insertInto('realm_emoji')
        .values({ realm_id: realm.id, name, file_name: fileName, is_animated: ext === 'gif' && isAnimatedGif(data) ? 1 : 0, author_id: user.id, deactivated: 0 })
        .returningAll()
        .executeTakeFirstOrThrow();
      return { row, users: await activeUserIds(tx, realm.id), all: await realmEmojiDict(tx, realm.id) };
    });
    publishCommitted(app, realm.id, stamp, [
      {
        users: result.users,
        event: { type: 'realm_emoji', op: 'add', emoji: presentRealmEmoji(result.row) },
        withoutCapability: { capability: 'individual_emoji_changes', events: [{ type: 'realm_emoji', op: 'update', realm_emoji: result.all }] },
      },
    ]);
  } catch (err) {
    await app.files.delete(key).catch(() => undefined);
    throw err;
  }
}

/** Deactivation keeps the row and file: old messages and reactions still show the image. */
export async function doDeactivateRealmEmoji(app: AppContext, realm: Realm, user: User, name: string): Promise<void> {
  const { result, stamp } = await app.store.write(async (tx) => {
    const row = await tx.selectFrom('realm_emoji').selectAll().where('realm_id', '=', realm.id).where('name', '=', name).where('deactivated', '=', 0).executeTakeFirst();
    if (!row) throw new ApiError(`Emoji '${name}' does not exist`, 'BAD_REQUEST', 404);
    // Authors may remove their own emoji; administrators any.
    if (row.author_id !== user.id && user.role > Role.ADMINISTRATOR) throw badRequest('Must be an organization administrator or emoji author');
    await tx.updateTable('realm_emoji').set({ deactivated: 1 }).where('id', '=', row.id).execute();
    return { id: row.id, users: await activeUserIds(tx, realm.id), all: await realmEmojiDict(tx, realm.id) };
  });
  publishCommitted(app, realm.id, stamp, [
    {
      users: result.users,
      event: { type: 'realm_emoji', op: 'update_one', emoji_id: String(result.id), data: { deactivated: true } },
      withoutCapability: { capability: 'individual_emoji_changes', events: [{ type: 'realm_emoji', op: 'update', realm_emoji: result.all }] },
    },
  ]);
}
