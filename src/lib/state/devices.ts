// Register state for the user's logged-in devices (devices, fetched with the `device` type).
import type { StateFetcher } from './context.js';

/** A device's push fields: all null while no push service registers it (none is configured here). */
export const EMPTY_DEVICE = Object.freeze({
  push_key_id: null,
  push_token_id: null,
  pending_push_token_id: null,
  push_token_last_updated_timestamp: null,
  push_registration_error_code: null,
});

export const devicesState: StateFetcher = {
  types: ['device'],
  async fetch({ tx, user }) {
    const rows = user ? await tx.selectFrom('client_devices').select('id').where('user_id', '=', user.id).orderBy('id').execute() : [];
    return { devices: Object.fromEntries(rows.map((r) => [String(r.id), { ...EMPTY_DEVICE }])) };
  },
};
