// PATCH and DELETE /users/me/profile_data (the caller's custom profile data), PATCH /realm/profile_fields
// (reorder), PATCH and DELETE /realm/profile_fields/{field_id}.
import type { RouteList } from '../http/router.js';
import { endpoint } from '../http/endpoint.js';
import { invalidParam, vIntList, vObject } from '../core/params.js';
import { IdList, INT32_MAX, Type, bool, id, json, str } from '../core/param-types.js';
import { badRequest } from '../core/api-error.js';
import type { ProfileDataUpdate } from '../lib/profile-fields.js';
import { doDeleteProfileField, doRemoveOwnProfileData, doReorderProfileFields, doUpdateOwnProfileData, doUpdateProfileField } from '../actions/profile-data.js';

/** [{id, value}]: value a string, a list of user IDs, or null to clear. */
function vProfileData(value: unknown, name: string): ProfileDataUpdate[] {
  if (!Array.isArray(value)) throw invalidParam(`${name} is not a list`, name);
  return value.map((item, i) => {
    const o = vObject(item, `${name}[${i}]`);
    if (typeof o.id !== 'number' || !Number.isSafeInteger(o.id)) throw invalidParam(`${name}[${i}]["id"] is not an integer`, name);
    if (!('value' in o)) throw invalidParam(`${name}[${i}] is missing "value"`, name);
    const v = o.value;
    const ok = v === null || typeof v === 'string' || (Array.isArray(v) && v.every((x) => typeof x === 'number' && Number.isSafeInteger(x)));
    if (!ok) throw invalidParam(`${name}[${i}]["value"] is not a string, a list of user IDs or null`, name);
    return { id: o.id, value: v as ProfileDataUpdate['value'] };
  });
}

const Update = Type.Object({ id: Type.Integer({ minimum: 0, maximum: INT32_MAX }), value: Type.Union([Type.String(), IdList, Type.Null()]) });

const update = endpoint({
  summary: 'Update your profile data',
  params: { data: json(Type.Array(Update), { required: true, validate: vProfileData }) },
  response: Type.Object({}),
  run: async (req, a) => {
    await doUpdateOwnProfileData(req.app, req.realm, req.user, a.data);
    return {};
  },
});

const remove = endpoint({
  summary: 'Remove your profile data',
  params: { data: json(IdList, { required: true, validate: vIntList }) },
  response: Type.Object({}),
  run: async (req, a) => {
    await doRemoveOwnProfileData(req.app, req.realm, req.user, a.data);
    return {};
  },
});

const reorder = endpoint({
  summary: 'Reorder custom profile fields',
  params: { order: json(IdList, { required: true, validate: vIntList }) },
  response: Type.Object({}),
  run: async (req, a) => {
    await doReorderProfileFields(req.app, req.realm, req.user, a.order);
    return {};
  },
});

const fieldPath = { field_id: id({ invalid: () => badRequest('Invalid field ID') }) };

const updateField = endpoint({
  summary: 'Update a custom profile field',
  path: fieldPath,
  params: { name: str(), hint: str(), field_data: str(), display_in_profile_summary: bool(), required: bool(), editable_by_user: bool() },
  response: Type.Object({}),
  run: async (req, a) => {
    await doUpdateProfileField(req.app, req.realm, req.user, a.field_id, {
      name: a.name,
      hint: a.hint,
      fieldData: a.field_data,
      displayInProfileSummary: a.display_in_profile_summary,
      required: a.required,
      editableByUser: a.editable_by_user,
    });
    return {};
  },
});

const deleteField = endpoint({
  summary: 'Delete a custom profile field',
  path: fieldPath,
  response: Type.Object({}),
  run: async (req, a) => {
    await doDeleteProfileField(req.app, req.realm, req.user, a.field_id);
    return {};
  },
});

export const routes: RouteList = [
  ['users/me/profile_data', { PATCH: update, DELETE: remove }],
  ['realm/profile_fields', { PATCH: reorder }],
  ['realm/profile_fields/{field_id:int}', { PATCH: updateField, DELETE: deleteField }],
];
