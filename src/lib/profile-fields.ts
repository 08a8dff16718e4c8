// Custom profile fields: field definitions, value checks per field type, stored values and their API forms.
import type { Tx } from '../store/store.js';
import type { User } from '../store/schema.js';
import { badRequest } from '../core/api-error.js';
import { renderMessage } from './markdown/index.js';
import { renderContextFrom } from './markdown/context.js';

/** Field types, as the original numbers them. */
export const FieldType = { SHORT_TEXT: 1, LONG_TEXT: 2, SELECT: 3, DATE: 4, URL: 5, USER: 6, EXTERNAL_ACCOUNT: 7, PRONOUNS: 8 } as const;
export const FIELD_TYPE_NAMES: Record<number, string> = {
  1: 'Text (short)',
  2: 'Text (long)',
  3: 'List of options',
  4: 'Date picker',
  5: 'Link',
  6: 'Users',
  7: 'External account',
  8: 'Pronouns',
};
/** Types whose values are Markdown and carry rendered_value. */
const RENDERED = new Set<number>([FieldType.SHORT_TEXT, FieldType.LONG_TEXT]);
const MAX_LENGTH: Record<number, number> = { 1: 50, 2: 500, 5: 2048, 7: 50, 8: 50 };
export const MAX_NAME_LENGTH = 40;
export const MAX_HINT_LENGTH = 80;

export type ProfileDataUpdate = { id: number; value: string | number[] | null };
/** A checked update: the stored text (null clears) and its rendering. */
export interface CheckedValue {
  fieldId: number;
  value: string | null;
  rendered: string | null;
}

export async function realmFields(tx: Tx, realmId: number) {
  return tx.selectFrom('custom_profile_fields').selectAll().where('realm_id', '=', realmId).orderBy('field_order').orderBy('id').execute();
}

/** The API form of a field definition. */
export function presentField(f: Awaited<ReturnType<typeof realmFields>>[number]): Record<string, unknown> {
  return {
    id: f.id,
    type: f.type,
    order: f.field_order,
    name: f.name,
    hint: f.hint,
    field_data: f.field_data,
    display_in_profile_summary: f.display_in_profile_summary === 1,
    required: f.required === 1,
    editable_by_user: f.editable_by_user === 1,
  };
}

/** Validates profile_data entries against the organization's fields (nothing is written). */
export async function checkProfileData(tx: Tx, realmId: number, target: Pick<User, 'id' | 'is_bot'>, updates: ProfileDataUpdate[]): Promise<CheckedValue[]> {
  const fields = new Map((await realmFields(tx, realmId)).map((f) => [f.id, f]));
  const out: CheckedValue[] = [];
  for (const u of updates) {
    const f = fields.get(u.id);
    if (!f) throw badRequest(`Field id ${u.id} not found.`);
    if (u.value === null || u.value === '' || (Array.isArray(u.value) && !u.value.length)) {
      out.push({ fieldId: f.id, value: null, rendered: null });
      continue;
    }
    if (f.type === FieldType.USER) {
      if (!Array.isArray(u.value)) throw badRequest(`${f.name} is not a list`);
      const ids = [...new Set(u.value)];
      const found = await tx.selectFrom('users').select('id').where('realm_id', '=', realmId).where('id', 'in', ids).execute();
      for (const id of ids) if (!found.some((r) => r.id === id)) throw badRequest(`Invalid user ID: ${id}`);
      out.push({ fieldId: f.id, value: JSON.stringify(ids), rendered: null });
      continue;
    }
    if (typeof u.value !== 'string') throw badRequest(`${f.name} is not a string`);
    const value = u.value;
    const max = MAX_LENGTH[f.type];
    if (max !== undefined && [...value].length > max) throw badRequest(`${f.name} is too long (limit: ${max} characters)`);
    if (f.type === FieldType.SELECT) {
      const choices = JSON.parse(f.field_data || '{}') as Record<string, unknown>;
      if (!(value in choices)) throw badRequest(`'${value}' is not a valid choice for '${f.name}'.`);
    } else if (f.type === FieldType.DATE) {
      if (!/^\d{4}-\d{2}-\d{2}$/.test(value) || Number.isNaN(Date.parse(`${value}T00:00:00Z`))) throw badRequest(`${f.name} is not a date`);
    } else if (f.type === FieldType.URL) {
      if (!/^https?:\/\/[^\s]+$/i.test(value)) throw badRequest(`${f.name} is not a URL`);
    }
    out.push({ fieldId: f.id, value, rendered: RENDERED.has(f.type) ? renderMessage(value, renderContextFrom([])).html : null });
  }
  return out;
}

export async function storeProfileData(tx: Tx, userId: number, values: CheckedValue[]): Promise<void> {
  for (const v of values) {
    await tx.deleteFrom('custom_profile_field_values').where('user_id', '=', userId).where('field_id', '=', v.fieldId).execute();
    if (v.value !== null) await tx.insertInto('custom_profile_field_values').values({ user_id: userId, field_id: v.fieldId, value: v.value, rendered_value: v.rendered }).execute();
  }
}

export type ProfileData = Record<string, { value: string; rendered_value?: string }>;

/** Every user's profile_data in the organization (register, GET /users). */
export async function realmProfileData(tx: Tx, realmId: number, userIds?: number[]): Promise<Map<number, ProfileData>> {
  let q = tx
    .selectFrom('custom_profile_field_values')
    .innerJoin('custom_profile_fields', 'custom_profile_fields.id', 'custom_profile_field_values.field_id')
    .select(['custom_profile_field_values.user_id', 'custom_profile_field_values.field_id', 'custom_profile_field_values.value', 'custom_profile_field_values.rendered_value'])
    .where('custom_profile_fields.realm_id', '=', realmId);
  if (userIds) q = q.where('custom_profile_field_values.user_id', 'in', userIds.length ? userIds : [-1]);
  const out = new Map<number, ProfileData>();
  for (const r of await q.orderBy('custom_profile_field_values.field_id').execute()) {
    let d = out.get(r.user_id);
    if (!d) out.set(r.user_id, (d = {}));
    d[String(r.field_id)] = r.rendered_value !== null ? { value: r.value, rendered_value: r.rendered_value } : { value: r.value };
  }
  return out;
}
