// A user's own custom profile data (PATCH and DELETE /users/me/profile_data) and the organization's
// field order (PATCH /realm/profile_fields), with realm_user and custom_profile_fields events.
import type { AppContext } from '../context.js';
import type { Realm, User } from '../store/schema.js';
import { badRequest } from '../core/api-error.js';
import { isAdminRole } from '../models/roles.js';
import { activeUserIds } from '../lib/users.js';
import { checkProfileData, presentField, realmFields, storeProfileData, type ProfileDataUpdate } from '../lib/profile-fields.js';
import { publishCommitted, to } from '../events/publish.js';

const notEditable = () => badRequest('You are not allowed to change this field. Contact an administrator to update it.');

/** Sets (or, with null values, clears) the caller's values; fields not editable by users need an administrator. */
export async function doUpdateOwnProfileData(app: AppContext, realm: Realm, user: User, updates: ProfileDataUpdate[]): Promise<void> {
  const { result, stamp } = await app.store.write(async (tx) => {
    const fields = new Map((await realmFields(tx, realm.id)).map((f) => [f.id, f]));
    for (const u of updates) {
      const f = fields.get(u.id);
      if (!f) throw badRequest(`Field id ${u.id} not found.`);
      if (!f.editable_by_user && !isAdminRole(user.role)) throw notEditable();
    }
    const values = await checkProfileData(tx, realm.id, user, updates);
    await storeProfileData(tx, user.id, values);
    const users = await activeUserIds(tx, realm.id);
    return values.map((v) =>
      to(users, { type: 'realm_user', op: 'update', person: { user_id: user.id, custom_profile_field: { id: v.fieldId, value: v.value, ...(v.rendered !== null ? { rendered_value: v.rendered } : {}) } } }),
    );
  });
  publishCommitted(app, realm.id, stamp, result);
}

/** Clears the caller's values of the listed fields. */
export async function doRemoveOwnProfileData(app: AppContext, realm: Realm, user: User, fieldIds: number[]): Promise<void> {
  await doUpdateOwnProfileData(app, realm, user, fieldIds.map((id) => ({ id, value: null })));
}

/** Puts the organization's fields in the given order: every field's ID, once. */
export async function doReorderProfileFields(app: AppContext, realm: Realm, actor: User, order: number[]): Promise<void> {
  if (!isAdminRole(actor.role)) throw badRequest('Must be an organization administrator');
  const { result, stamp } = await app.store.write(async (tx) => {
    const fields = await realmFields(tx, realm.id);
    const ids = new Set(fields.map((f) => f.id));
    if (order.length !== ids.size || new Set(order).size !== order.length || !order.every((id) => ids.has(id))) throw badRequest('Invalid order mapping.');
    for (let i = 0; i < order.length; i++) await tx.updateTable('custom_profile_fields').set({ field_order: i + 1 }).where('id', '=', order[i]).execute();
    const all = await realmFields(tx, realm.id);
    return to(await activeUserIds(tx, realm.id), { type: 'custom_profile_fields', fields: all.map(presentField) });
  });
  publishCommitted(app, realm.id, stamp, [result]);
}
