// Channel folders: reads, the API object, and the name and description rules.
import type { Tx } from '../store/store.js';
import type { ChannelFolder } from '../store/schema-channel-admin.js';
import { badRequest } from '../core/api-error.js';
import { renderStreamDescription } from './streams/names.js';

export const MAX_FOLDER_NAME_LENGTH = 60;
export const MAX_FOLDER_DESCRIPTION_LENGTH = 1024;

export const invalidFolder = () => badRequest('Invalid channel folder ID');

export function presentFolder(f: ChannelFolder): Record<string, unknown> {
  return {
    id: f.id,
    name: f.name,
    description: f.description,
    rendered_description: f.rendered_description,
    order: f.order,
    date_created: f.date_created,
    creator_id: f.creator_id,
    is_archived: f.is_archived === 1,
  };
}

/** The organization's folders in their order (ID breaks ties), archived ones too unless asked otherwise. */
export async function realmFolders(tx: Tx, realmId: number, opts: { includeArchived: boolean } = { includeArchived: true }): Promise<ChannelFolder[]> {
  let q = tx.selectFrom('channel_folders').selectAll().where('realm_id', '=', realmId);
  if (!opts.includeArchived) q = q.where('is_archived', '=', 0);
  return q.orderBy('order').orderBy('id').execute();
}

export async function folderById(tx: Tx, realmId: number, id: number): Promise<ChannelFolder> {
  const f = await tx.selectFrom('channel_folders').selectAll().where('realm_id', '=', realmId).where('id', '=', id).executeTakeFirst();
  if (!f) throw invalidFolder();
  return f;
}

/** A folder a channel may be put in: it exists in the organization and is not archived. */
export async function activeFolder(tx: Tx, realmId: number, id: number): Promise<ChannelFolder> {
  const f = await folderById(tx, realmId, id);
  if (f.is_archived) throw badRequest('Cannot add channel to an archived folder.');
  return f;
}

export function checkFolderName(raw: string): string {
  const name = raw.trim();
  if (!name) throw badRequest("Channel folder name can't be empty.");
  if ([...name].length > MAX_FOLDER_NAME_LENGTH) throw badRequest(`Channel folder name too long (limit: ${MAX_FOLDER_NAME_LENGTH} characters).`);
  if (/[\u0000-\u001f\u007f-\u009f]/u.test(name)) throw badRequest('Invalid character in channel folder name.');
  return name;
}

export function checkFolderDescription(raw: string): { description: string; rendered: string } {
  const description = raw.trim();
  if ([...description].length > MAX_FOLDER_DESCRIPTION_LENGTH) throw badRequest(`Channel folder description too long (limit: ${MAX_FOLDER_DESCRIPTION_LENGTH} characters).`);
  return { description, rendered: renderStreamDescription(description) };
}

/** Another folder of the organization with this name (case-insensitive). */
export async function folderNameTaken(tx: Tx, realmId: number, name: string, exceptId: number | null): Promise<boolean> {
  const row = await tx.selectFrom('channel_folders').select('id').where('realm_id', '=', realmId).where('name_key', '=', name.toLowerCase()).executeTakeFirst();
  return !!row && row.id !== exceptId;
}
