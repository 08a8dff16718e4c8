// Reads behind the export views: who consented to private-data exports, and whether an export file is live.
import type { AppContext } from '../context.js';
import type { Realm } from '../store/schema.js';
import { emailVisibility } from './users.js';

export interface ExportConsent {
  user_id: number;
  consented: boolean;
  email_address_visibility: number;
}

/** Each active person of the organization and whether they allow their private data in exports. */
export async function exportConsents(app: AppContext, realm: Realm): Promise<ExportConsent[]> {
  const users = await app.store.db.selectFrom('users').select(['id', 'settings']).where('realm_id', '=', realm.id).where('is_active', '=', 1).where('is_bot', '=', 0).orderBy('id').execute();
  return users.map((u) => ({
    user_id: u.id,
    consented: (JSON.parse(u.settings) as { allow_private_data_export?: boolean }).allow_private_data_export === true,
    email_address_visibility: emailVisibility(u),
  }));
}

/** Whether an export of this organization with this file key exists and was not deleted. */
export async function exportFileIsLive(app: AppContext, realm: Realm, fileKey: string): Promise<boolean> {
  const row = await app.store.db.selectFrom('realm_exports').select('id').where('realm_id', '=', realm.id).where('file_key', '=', fileKey).where('deleted_time', 'is', null).executeTakeFirst();
  return row !== undefined;
}
