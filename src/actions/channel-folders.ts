// Channel folders: create, update (name, description, archived) and reorder, with channel_folder events.
import type { AppContext } from '../context.js';
import type { Realm, User } from '../store/schema.js';
import type { Tx } from '../store/store.js';
import { ApiError, badRequest } from '../core/api-error.js';
import { Role } from '../models/roles.js';
import { activeUserIds } from '../lib/users.js';
import { checkFolderDescription, checkFolderName, folderById, folderNameTaken, presentFolder, realmFolders } from '../lib/channel-folders.js';
import { to, writeWithEvents } from '../events/publish.js';
import type { EventBody } from '../events/types.js';

function requireAdmin(user: User): void {
  if (user.role > Role.ADMINISTRATOR) throw new ApiError('Must be an organization administrator', 'UNAUTHORIZED_PRINCIPAL', 400);
}

const nameTaken = (name: string) => badRequest(`Channel folder name already in use: ${name}`);

async function send(app: AppContext, realm: Realm, fn: (tx: Tx) => Promise<{ value: number | null; event: EventBody | null }>): Promise<number | null> {
  const { result } = await writeWithEvents(
    app,
    realm.id,
    async (tx) => {
      const r = await fn(tx);
      return { ...r, users: r.event ? await activeUserIds(tx, realm.id) : [] };
    },
    (r) => (r.event ? [to(r.users, r.event)] : []),
  );
  return result.value;
}

export async function doCreateChannelFolder(app: AppContext, realm: Realm, actor: User, input: { name: string; description: string }): Promise<number> {
  requireAdmin(actor);
  const id = await send(app, realm, async (tx) => {
    const name = checkFolderName(input.name);
    const { description, rendered } = checkFolderDescription(input.description);
    if (await folderNameTaken(tx, realm.id, name, null)) throw nameTaken(name);
    const last = await tx.selectFrom('channel_folders').select((eb) => eb.fn.max<number>('order').as('m')).where('realm_id', '=', realm.id).executeTakeFirst();
    const order = last?.m === null || last?.m === undefined ? 0 : Number(last.m) + 1;
    const row = await tx
      .insertInto('channel_folders')
      .values({ realm_id: realm.id, name, name_key: name.toLowerCase(), description, rendered_description: rendered, order, date_created: app.clock.now(), creator_id: actor.id, is_archived: 0 })
      .returningAll()
      .executeTakeFirstOrThrow();
    return { value: row.id, event: { type: 'channel_folder', op: 'add', channel_folder: presentFolder(row) } };
  });
  return id!;
}

export async function doUpdateChannelFolder(app: AppContext, realm: Realm, actor: User, folderId: number, input: { name?: string; description?: string; isArchived?: boolean }): Promise<void> {
  requireAdmin(actor);
  await send(app, realm, async (tx) => {
    const folder = await folderById(tx, realm.id, folderId);
    const data: Record<string, unknown> = {};
    const set: Record<string, unknown> = {};
    if (input.name !== undefined) {
      const name = checkFolderName(input.name);
      if (name !== folder.name) {
        if (await folderNameTaken(tx, realm.id, name, folder.id)) throw nameTaken(name);
        set.name = name;
        set.name_key = name.toLowerCase();
        data.name = name;
      }
    }
    if (input.description !== undefined) {
      const { description, rendered } = checkFolderDescription(input.description);
      if (description !== folder.description) {
        set.description = description;
        set.rendered_description = rendered;
        data.description = description;
        data.rendered_description = rendered;
      }
    }
    if (input.isArchived !== undefined && input.isArchived !== (folder.is_archived === 1)) {
      if (input.isArchived) {
        // A folder holding channels that are not archived cannot be archived.
        const used = await tx.selectFrom('streams').select('id').where('folder_id', '=', folder.id).where('is_archived', '=', 0).executeTakeFirst();
        if (used) throw badRequest('You need to remove all the channels from this folder to archive it.');
      }
      set.is_archived = input.isArchived ? 1 : 0;
      data.is_archived = input.isArchived;
    }
    if (!Object.keys(set).length) return { value: null, event: null };
    await tx.updateTable('channel_folders').set(set).where('id', '=', folder.id).execute();
    return { value: null, event: { type: 'channel_folder', op: 'update', channel_folder_id: folder.id, data } };
  });
}

export async function doReorderChannelFolders(app: AppContext, realm: Realm, actor: User, order: number[]): Promise<void> {
  requireAdmin(actor);
  await send(app, realm, async (tx) => {
    const folders = await realmFolders(tx, realm.id);
    const ids = new Set(folders.map((f) => f.id));
    if (order.length !== ids.size || new Set(order).size !== order.length || !order.every((id) => ids.has(id))) throw badRequest('Invalid order mapping');
    for (let i = 0; i < order.length; i++) await tx.updateTable('channel_folders').set({ order: i }).where('id', '=', order[i]).execute();
    return { value: null, event: { type: 'channel_folder', op: 'reorder', order } };
  });
}
