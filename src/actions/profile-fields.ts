// Creating custom profile fields (POST /realm/profile_fields) and announcing the organization's field list.
import type { AppContext } from '../context.js';
import type { Realm, User } from '../store/schema.js';
import { badRequest } from '../core/api-error.js';
import { isAdminRole } from '../models/roles.js';
import { FIELD_TYPE_NAMES, FieldType, MAX_HINT_LENGTH, MAX_NAME_LENGTH, presentField, realmFields } from '../lib/profile-fields.js';
import { activeUserIds } from '../lib/users.js';
import { writeWithEvents, to } from '../events/publish.js';
import { mustBeAdmin } from './user-admin.js';

export interface NewProfileField {
  name: string;
  hint: string;
  type: number;
  fieldData: string;
  displayInProfileSummary: boolean;
  required: boolean;
  editableByUser: boolean;
}

/** At most this many fields are shown in the profile summary (the original's limit). */
export const MAX_SUMMARY_FIELDS = 2;

export function checkFieldData(type: number, raw: string): string {
  if (type === FieldType.SELECT) {
    let data: unknown;
    try {
      data = JSON.parse(raw || '{}');
    } catch {
      throw badRequest('Argument "field_data" is not valid JSON.');
    }
    if (typeof data !== 'object' || data === null || Array.isArray(data)) throw badRequest('field_data is not a dict');
    const entries = Object.entries(data as Record<string, unknown>);
    if (!entries.length) throw badRequest('Field must have at least one choice.');
    const texts = new Set<string>();
    for (const [key, v] of entries) {
      const o = v as { text?: unknown; order?: unknown };
      if (typeof o !== 'object' || o === null || typeof o.text !== 'string' || !o.text.trim()) throw badRequest(`field_data["${key}"]["text"] cannot be blank.`);
      if (texts.has(o.text)) throw badRequest('Field must not have duplicate choices.');
      texts.add(o.text);
    }
    return JSON.stringify(data);
  }
  if (type === FieldType.EXTERNAL_ACCOUNT) {
    let data: { subtype?: unknown; url_pattern?: unknown };
    try {
      data = JSON.parse(raw || '{}') as typeof data;
    } catch {
      throw badRequest('Argument "field_data" is not valid JSON.');
    }
    if (typeof data?.subtype !== 'string' || !data.subtype) throw badRequest('Invalid external account type');
    if (data.subtype === 'custom' && (typeof data.url_pattern !== 'string' || (data.url_pattern.match(/%\(username\)s/g) ?? []).length !== 1)) {
      throw badRequest('Custom external account must define URL pattern');
    }
    return JSON.stringify(data);
  }
  return '';
}

export async function doCreateProfileField(app: AppContext, realm: Realm, actor: User, input: NewProfileField): Promise<number> {
  if (!isAdminRole(actor.role)) throw mustBeAdmin();
  if (!(input.type in FIELD_TYPE_NAMES)) throw badRequest('Invalid field type.');
  const name = input.name.trim();
  if (!name) throw badRequest('Label cannot be blank.');
  if ([...name].length > MAX_NAME_LENGTH) throw badRequest(`name is too long (limit: ${MAX_NAME_LENGTH} characters)`);
  if ([...input.hint].length > MAX_HINT_LENGTH) throw badRequest(`hint is too long (limit: ${MAX_HINT_LENGTH} characters)`);
  const fieldData = checkFieldData(input.type, input.fieldData);
  if (input.displayInProfileSummary && (input.type === FieldType.LONG_TEXT || input.type === FieldType.USER)) throw badRequest('Field type not supported for display in profile summary.');
  const { result } = await writeWithEvents(
    app,
    realm.id,
    async (tx) => {
      const fields = await realmFields(tx, realm.id);
      if (fields.some((f) => f.name.toLowerCase() === name.toLowerCase())) throw badRequest('A field with that label already exists.');
      if (input.displayInProfileSummary && fields.filter((f) => f.display_in_profile_summary).length >= MAX_SUMMARY_FIELDS) {
        throw badRequest(`Only ${MAX_SUMMARY_FIELDS} custom profile fields can be displayed in the profile summary.`);
      }
      const order = fields.reduce((m, f) => Math.max(m, f.field_order), 0) + 1;
      const row = await tx
        .insertInto('custom_profile_fields')
        .values({
          realm_id: realm.id,
          type: input.type,
          name,
          hint: input.hint,
          field_data: fieldData,
          field_order: order,
          display_in_profile_summary: input.displayInProfileSummary ? 1 : 0,
          required: input.required ? 1 : 0,
          editable_by_user: input.editableByUser ? 1 : 0,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      const all = await realmFields(tx, realm.id);
      return { id: row.id, events: [to(await activeUserIds(tx, realm.id), { type: 'custom_profile_fields', fields: all.map(presentField) })] };
    },
    (r) => r.events,
  );
  return result.id;
}
