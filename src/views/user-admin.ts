// Administrators' user management: PATCH /users/{id|email}, DELETE /users/{id}, reactivation, custom profile fields.
import type { RouteList } from '../http/router.js';
import type { AuthedRequest } from '../http/types.js';
import type { Tx } from '../store/store.js';
import type { User } from '../store/schema.js';
import { endpoint } from '../http/endpoint.js';
import { badRequest } from '../core/api-error.js';
import { invalidParam, vObject } from '../core/params.js';
import { INT32_MAX, INT32_MIN, Type, bool, id, int, json, loose, str, type ParamValues } from '../core/param-types.js';
import { ROLE_CODES, Role, isAdminRole } from '../models/roles.js';
import { userById, userByEmailFor } from '../lib/users.js';
import { FIELD_TYPE_NAMES, presentField, realmFields } from '../lib/profile-fields.js';
import { doUpdateUser, mustBeAdmin, type UserChanges } from '../actions/user-admin.js';
import { DEACTIVATION_ACTIONS, doDeactivateUser, doReactivateUser, type DeactivationActions } from '../actions/user-deactivate.js';
import { doCreateProfileField } from '../actions/profile-fields.js';
import { vProfileData } from './profile-data-param.js';

/** The original's limit on the custom text of the deactivation email. */
const MAX_DEACTIVATION_COMMENT = 2000;

function vActions(value: unknown, name: string): DeactivationActions {
  const o = vObject(value, name);
  const out: DeactivationActions = {};
  for (const [k, v] of Object.entries(o)) {
    if (!(DEACTIVATION_ACTIONS as readonly string[]).includes(k)) throw invalidParam(`Invalid ${name} key: ${k}`, name);
    if (typeof v !== 'boolean') throw invalidParam(`${name}["${k}"] is not a boolean`, name);
    out[k as keyof DeactivationActions] = v;
  }
  return out;
}

const noSuchUser = () => badRequest('No such user');
const userId = { user_id: id({ invalid: noSuchUser }) };

/** PATCH /users parameters; the role may also come as the legacy is_admin / is_guest pair. */
const changeParams = {
  role: json(Type.Union(ROLE_CODES.map((c) => Type.Literal(c))), {
    validate: (v, n) => {
      if (typeof v !== 'number' || !ROLE_CODES.includes(v)) throw invalidParam('Invalid role', n);
      return v;
    },
  }),
  is_admin: bool({ description: 'Legacy: true makes the user an administrator, false demotes an administrator to member.' }),
  is_guest: bool({ description: 'Legacy: true makes the user a guest, false makes a guest a member.' }),
  full_name: str(),
  new_email: str(),
  profile_data: json(Type.Array(Type.Object({ id: Type.Integer({ minimum: INT32_MIN, maximum: INT32_MAX }), value: Type.Union([Type.String(), Type.Array(Type.Integer()), Type.Null()]) })), { validate: vProfileData }),
};

/** Checks the administrator before any form parameter is read, as the original. */
const adminFirst = (req: AuthedRequest) => {
  if (!isAdminRole(req.user.role)) throw mustBeAdmin();
};

async function update(req: AuthedRequest, a: ParamValues<typeof changeParams>, find: (tx: Tx) => Promise<User | undefined>) {
  // The one refusal among roles: a request that makes a user both a guest and an administrator.
  if (a.is_guest === true && (a.is_admin === true || (a.role !== undefined && a.role <= Role.ADMINISTRATOR))) throw badRequest('Guests cannot be organization administrators');
  if (a.is_admin === true && a.role === Role.GUEST) throw badRequest('Guests cannot be organization administrators');
  const changes: UserChanges = { fullName: a.full_name, role: a.role, newEmail: a.new_email, profileData: a.profile_data };
  await doUpdateUser(req.app, req.realm, req.user, async (tx) => {
    const u = await find(tx);
    if (u && changes.role === undefined) {
      // Legacy clients name the role by two booleans; false only demotes a user who has that role.
      if (a.is_admin === true) changes.role = Role.ADMINISTRATOR;
      else if (a.is_guest === true) changes.role = Role.GUEST;
      else if (a.is_admin === false && isAdminRole(u.role)) changes.role = Role.MEMBER;
      else if (a.is_guest === false && u.role === Role.GUEST) changes.role = Role.MEMBER;
    }
    return u;
  }, changes);
  return {};
}

const updateById = endpoint({
  summary: 'Update a user',
  path: userId,
  check: adminFirst,
  params: changeParams,
  response: Type.Object({}),
  run: async (req, a) => update(req, a, (tx) => userById(tx, req.realm.id, a.user_id)),
});

const updateByEmail = endpoint({
  summary: 'Update a user by email',
  path: { email: str({ invalid: noSuchUser }) },
  check: adminFirst,
  params: changeParams,
  response: Type.Object({}),
  run: async (req, a) => update(req, a, (tx) => userByEmailFor(tx, req.user, a.email)),
});

const commentText = str();
/** Counted in characters (code points), as the original. */
const deactivationComment: typeof commentText = {
  ...commentText,
  schema: Type.String({ maxLength: MAX_DEACTIVATION_COMMENT }),
  decode: (text, name) => {
    const comment = commentText.decode(text, name);
    if ([...comment].length > MAX_DEACTIVATION_COMMENT) throw invalidParam(`${name} is too long (limit: ${MAX_DEACTIVATION_COMMENT} characters)`, name);
    return comment;
  },
};

const deactivate = endpoint({
  summary: 'Deactivate a user',
  path: userId,
  params: {
    actions: json(Type.Record(Type.String(), Type.Boolean()), { validate: vActions }),
    deactivation_notification_comment: deactivationComment,
  },
  response: Type.Object({}),
  run: async (req, a) => {
    await doDeactivateUser(req.app, req.realm, req.user, a.user_id, a.actions ?? {}, a.deactivation_notification_comment ?? null);
    return {};
  },
});

const reactivate = endpoint({
  summary: 'Reactivate a user',
  path: userId,
  response: Type.Object({}),
  run: async (req, a) => {
    await doReactivateUser(req.app, req.realm, req.user, a.user_id);
    return {};
  },
});

const ProfileField = loose(
  Type.Object({
    id: Type.Integer(),
    type: Type.Integer(),
    order: Type.Integer(),
    name: Type.String(),
    hint: Type.String(),
    field_data: Type.String(),
    display_in_profile_summary: Type.Boolean(),
    required: Type.Boolean(),
    editable_by_user: Type.Boolean(),
  }),
);

const getProfileFields = endpoint({
  summary: 'Get all custom profile fields',
  response: Type.Object({ custom_fields: Type.Array(ProfileField) }),
  run: async (req) => {
    const fields = await req.app.store.read((tx) => realmFields(tx, req.realm.id));
    return { custom_fields: fields.map(presentField) };
  },
});

const fieldTypeInt = int({ required: true });
/** One of the field type codes (FIELD_TYPE_NAMES). */
const fieldType: typeof fieldTypeInt = {
  ...fieldTypeInt,
  schema: Type.Union(Object.keys(FIELD_TYPE_NAMES).map((k) => Type.Literal(Number(k)))),
  decode: (text, name) => {
    const type = fieldTypeInt.decode(text, name);
    if (!(type in FIELD_TYPE_NAMES)) throw invalidParam('Invalid field type.', name);
    return type;
  },
};

const createProfileField = endpoint({
  summary: 'Create a custom profile field',
  params: {
    field_type: fieldType,
    name: str({ default: '' }),
    hint: str({ default: '' }),
    field_data: str({ default: '', description: 'JSON text: the choices of a list field, the URL pattern of an external account field.' }),
    display_in_profile_summary: bool({ default: false }),
    required: bool({ default: false }),
    editable_by_user: bool({ default: true }),
  },
  response: Type.Object({ id: Type.Integer() }),
  run: async (req, a) => {
    const id = await doCreateProfileField(req.app, req.realm, req.user, {
      name: a.name,
      hint: a.hint,
      type: a.field_type,
      fieldData: a.field_data,
      displayInProfileSummary: a.display_in_profile_summary,
      required: a.required,
      editableByUser: a.editable_by_user,
    });
    return { id };
  },
});

export const routes: RouteList = [
  ['users/{user_id:int}', { PATCH: updateById, DELETE: deactivate }],
  ['users/{user_id:int}/reactivate', { POST: reactivate }],
  ['users/{email}', { PATCH: updateByEmail }],
  ['realm/profile_fields', { GET: getProfileFields, POST: createProfileField }],
];
