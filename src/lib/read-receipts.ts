// Who has read a message, as far as each reader shares it (GET /messages/{id}/read_receipts).
import { sql } from 'kysely';
import type { Realm, User } from '../store/schema.js';
import type { Tx } from '../store/store.js';
import { badRequest } from '../core/api-error.js';
import { FLAG_BITS } from '../models/flags.js';
import { userSetting } from '../models/user-settings.js';
import { accessMessage } from './messages/access.js';
import { realmSettings } from './realm-settings.js';

/**
 * Readers of a message the viewer may see: never its sender, nor anyone who turned off
 * send_read_receipts, nor deactivated users, nor users the viewer muted or who muted the viewer
 * (the reference, since feature level 143). The viewer appears when they read it.
 */
export async function readReceipts(tx: Tx, realm: Realm, viewer: User, messageId: number): Promise<number[]> {
  if (realmSettings(realm).enable_read_receipts !== true) throw badRequest('Read receipts are disabled in this organization.');
  const { message } = await accessMessage(tx, viewer, messageId);
  const rows = await tx
    .selectFrom('user_messages as um')
    .innerJoin('users as u', 'u.id', 'um.user_id')
    .select(['u.id', 'u.settings'])
    .where('um.message_id', '=', message.id)
    .where(sql<boolean>`(um.flags & ${FLAG_BITS.read}) <> 0`)
    .where('u.id', '<>', message.sender_id)
    .where('u.is_active', '=', 1)
    .where('u.id', 'not in', tx.selectFrom('muted_users').select('muted_user_id').where('user_id', '=', viewer.id))
    .where('u.id', 'not in', tx.selectFrom('muted_users').select('user_id').where('muted_user_id', '=', viewer.id))
    .orderBy('u.id')
    .execute();
  return rows.filter((r) => userSetting(r.settings, 'send_read_receipts') !== false).map((r) => r.id);
}
