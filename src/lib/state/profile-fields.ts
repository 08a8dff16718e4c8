// Register state for custom_profile_fields: the organization's field definitions and the field types.
import type { StateFetcher } from './context.js';
import { FIELD_TYPE_NAMES, presentField, realmFields } from '../profile-fields.js';

const TYPE_KEYS: Record<number, string> = { 1: 'SHORT_TEXT', 2: 'LONG_TEXT', 3: 'SELECT', 4: 'DATE', 5: 'URL', 6: 'USER', 7: 'EXTERNAL_ACCOUNT', 8: 'PRONOUNS' };

export const customProfileFieldsState: StateFetcher = {
  types: ['custom_profile_fields'],
  async fetch({ tx, realm }) {
    const fields = await realmFields(tx, realm.id);
    return {
      custom_profile_fields: fields.map(presentField),
      custom_profile_field_types: Object.fromEntries(Object.entries(TYPE_KEYS).map(([id, key]) => [key, { id: Number(id), name: FIELD_TYPE_NAMES[Number(id)] }])),
    };
  },
};
