// A user's own custom profile data (PATCH and DELETE /users/me/profile_data) and the organization's
// fields' order and definitions (PATCH /realm/profile_fields, PATCH and DELETE /realm/profile_fields/{id}),
// with realm_user and custom_profile_fields events.
import type { AppContext } from '../context.js';
import type { Realm, User } from '../store/schema.js';
import { badRequest } from '../core/api-error.js';
import { isAdminRole } from '../models/roles.js';
import { activeUserIds } from '../lib/users.js';
import { viewersWithAccess } from '../lib/user-access.js';
import { checkProfileData, FieldType, MAX_HINT_LENGTH, MAX_NAME_LENGTH, presentField, realmFields, storeProfileData, type ProfileDataUpdate } from '../lib/profile-fields.js';
import { checkFieldData, MAX_SUMMARY_FIELDS } from './profile-fields.js';
import { writeWithEvents, to, type Outgoing } from '../events/publish.js';
import type { Tx } from '../store/store.js';
import type { Updateable } from 'kysely';
import type { CustomProfileFieldTable } from '../store/schema.js';

const notEditable = () => badRequest('You are not allowed to change this field. Contact an administrator to update it.');

/** Sets (or, with null values, clears) the caller's values; fields not editable by users need an administrator. */
export async function doUpdateOwnProfileData(app: AppContext, realm: Realm, user: User, updates: ProfileDataUpdate[]): Promise<void> {
  await writeWithEvents(app, realm.id, async (tx) => {
    const fields = new Map((await realmFields(tx, realm.id)).map((f) => [f.id, f]));
    for (const u of updates) {
      const f = fields.get(u.id);
      if (!f) throw badRequest(`Field id ${u.id} not found.`);
      if (!f.editable_by_user && !isAdminRole(user.role)) throw notEditable();
    }
    const values = await checkProfileData(tx, realm.id, user, updates);
    await storeProfileData(tx, user.id, values);
    // Restricted users (can_access_all_users_group) hear nothing about a user they may not access.
    const users = await viewersWithAccess(tx, realm, user.id, await activeUserIds(tx, realm.id));
    return values.map((v) =>
      to(users, { type: 'realm_user', op: 'update', person: { user_id: user.id, custom_profile_field: { id: v.fieldId, value: v.value, ...(v.rendered !== null ? { rendered_value: v.rendered } : {}) } } }),
    );
  }, (result) => result);
}

/** Clears the caller's values of the listed fields. */
export async function doRemoveOwnProfileData(app: AppContext, realm: Realm, user: User, fieldIds: number[]): Promise<void> {
  await doUpdateOwnProfileData(app, realm, user, fieldIds.map((id) => ({ id, value: null })));
}

/** Puts the organization's fields in the given order: every field's ID, once. */
export async function doReorderProfileFields(app: AppContext, realm: Realm, actor: User, order: number[]): Promise<void> {
  if (!isAdminRole(actor.role)) throw badRequest('Must be an organization administrator');
  await writeWithEvents(app, realm.id, async (tx) => {
    const fields = await realmFields(tx, realm.id);
    const ids = new Set(fields.map((f) => f.id));
    if (order.length !== ids.size || new Set(order).size !== order.length || !order.every((id) => ids.has(id))) throw badRequest('Invalid order mapping.');
    for (let i = 0; i < order.length; i++) await tx.updateTable('custom_profile_fields').set({ field_order: i + 1 }).where('id', '=', order[i]).execute();
    return fieldsEvent(tx, realm.id);
  }, (result) => [result]);
}

export interface ProfileFieldChanges {
  name?: string;
  hint?: string;
  fieldData?: string;
  displayInProfileSummary?: boolean;
  required?: boolean;
  editableByUser?: boolean;
}

async function fieldsEvent(tx: Tx, realmId: number): Promise<Outgoing> {
  const all = await realmFields(tx, realmId);
  return to(await activeUserIds(tx, realmId), { type: 'custom_profile_fields', fields: all.map(presentField) });
}

/** PATCH /realm/profile_fields/{id}: the field's label, hint, choices and flags (its type never changes). */
export async function doUpdateProfileField(app: AppContext, realm: Realm, actor: User, fieldId: number, c: ProfileFieldChanges): Promise<void> {
  if (!isAdminRole(actor.role)) throw badRequest('Must be an organization administrator');
  await writeWithEvents(app, realm.id, async (tx) => {
    const fields = await realmFields(tx, realm.id);
    const field = fields.find((f) => f.id === fieldId);
    if (!field) throw badRequest(`Field id ${fieldId} not found.`);
    const set: Updateable<CustomProfileFieldTable> = {};
    if (c.name !== undefined) {
      const name = c.name.trim();
      if (!name) throw badRequest('Label cannot be blank.');
      if ([...name].length > MAX_NAME_LENGTH) throw badRequest(`name is too long (limit: ${MAX_NAME_LENGTH} characters)`);
      if (fields.some((f) => f.id !== field.id && f.name.toLowerCase() === name.toLowerCase())) throw badRequest('A field with that label already exists.');
      set.name = name;
    }
    if (c.hint !== undefined) {
      if ([...c.hint].length > MAX_HINT_LENGTH) throw badRequest(`hint is too long (limit: ${MAX_HINT_LENGTH} characters)`);
      set.hint = c.hint;
    }
    if (c.fieldData !== undefined) set.field_data = checkFieldData(field.type, c.fieldData);
    if (c.displayInProfileSummary !== undefined) {
      if (c.displayInProfileSummary && (field.type === FieldType.LONG_TEXT || field.type === FieldType.USER)) throw badRequest('Field type not supported for display in profile summary.');
      if (c.displayInProfileSummary && !field.display_in_profile_summary && fields.filter((f) => f.display_in_profile_summary).length >= MAX_SUMMARY_FIELDS) {
        throw badRequest(`Only ${MAX_SUMMARY_FIELDS} custom profile fields can be displayed in the profile summary.`);
      }
      set.display_in_profile_summary = c.displayInProfileSummary ? 1 : 0;
    }
    if (c.required !== undefined) set.required = c.required ? 1 : 0;
    if (c.editableByUser !== undefined) set.editable_by_user = c.editableByUser ? 1 : 0;
    if (!Object.keys(set).length) throw badRequest('No new data supplied');
    await tx.updateTable('custom_profile_fields').set(set).where('id', '=', field.id).execute();
    return fieldsEvent(tx, realm.id);
  }, (result) => [result]);
}

/** DELETE /realm/profile_fields/{id}: the field and every user's value of it. */
export async function doDeleteProfileField(app: AppContext, realm: Realm, actor: User, fieldId: number): Promise<void> {
  if (!isAdminRole(actor.role)) throw badRequest('Must be an organization administrator');
  await writeWithEvents(app, realm.id, async (tx) => {
    const field = await tx.selectFrom('custom_profile_fields').select('id').where('realm_id', '=', realm.id).where('id', '=', fieldId).executeTakeFirst();
    if (!field) throw badRequest(`Field id ${fieldId} not found.`);
    await tx.deleteFrom('custom_profile_field_values').where('field_id', '=', field.id).execute();
    await tx.deleteFrom('custom_profile_fields').where('id', '=', field.id).execute();
    return fieldsEvent(tx, realm.id);
  }, (result) => [result]);
}
