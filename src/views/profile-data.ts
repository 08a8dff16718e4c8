// PATCH and DELETE /users/me/profile_data (the caller's custom profile data), PATCH /realm/profile_fields
// (reorder), PATCH and DELETE /realm/profile_fields/{field_id}.
import type { RouteList } from '../http/router.js';
import { endpoint } from '../http/endpoint.js';
import { vIntList } from '../core/params.js';
import { IdList, INT32_MAX, Type, bool, id, json, str } from '../core/param-types.js';
import { badRequest } from '../core/api-error.js';
import { vProfileData } from './profile-data-param.js';
import { doDeleteProfileField, doRemoveOwnProfileData, doReorderProfileFields, doUpdateOwnProfileData, doUpdateProfileField } from '../actions/profile-data.js';

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
