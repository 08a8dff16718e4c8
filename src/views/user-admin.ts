// Administrators' user management: PATCH /users/{id|email}, DELETE /users/{id}, reactivation, custom profile fields.
import type { RouteList } from '../http/router.js';
import type { AuthedRequest } from '../http/types.js';
import type { Tx } from '../store/store.js';
import type { User } from '../store/schema.js';
import { authed } from '../http/handlers.js';
import { badRequest } from '../core/api-error.js';
import { invalidParam, toInt, vObject } from '../core/params.js';
import { ROLE_CODES, Role, isAdminRole } from '../models/roles.js';
import { userById, userByEmailFor } from '../lib/users.js';
import { FIELD_TYPE_NAMES, presentField, realmFields, type ProfileDataUpdate } from '../lib/profile-fields.js';
import { doUpdateUser, mustBeAdmin, type UserChanges } from '../actions/user-admin.js';
import { DEACTIVATION_ACTIONS, doDeactivateUser, doReactivateUser, type DeactivationActions } from '../actions/user-deactivate.js';
import { doCreateProfileField } from '../actions/profile-fields.js';

/** The original's limit on the custom text of the deactivation email. */
export const MAX_DEACTIVATION_COMMENT = 2000;

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

/** Reads PATCH /users parameters; the role may also come as the legacy is_admin / is_guest pair. */
function readChanges(req: AuthedRequest): UserChanges & { legacy: { isAdmin?: boolean; isGuest?: boolean } } {
  const p = req.params;
  const role = p.json('role', (v, n) => {
    if (typeof v !== 'number' || !ROLE_CODES.includes(v)) throw invalidParam('Invalid role', n);
    return v;
  });
  const isAdmin = p.optBool('is_admin');
  const isGuest = p.optBool('is_guest');
  // The one refusal among roles: a request that makes a user both a guest and an administrator.
  if (isGuest === true && (isAdmin === true || (role !== undefined && role <= Role.ADMINISTRATOR))) throw badRequest('Guests cannot be organization administrators');
  if (isAdmin === true && role === Role.GUEST) throw badRequest('Guests cannot be organization administrators');
  return {
    fullName: p.str('full_name'),
    role,
    newEmail: p.str('new_email'),
    profileData: p.json('profile_data', vProfileData),
    legacy: { isAdmin, isGuest },
  };
}

async function update(req: AuthedRequest, find: (tx: Tx) => Promise<User | undefined>) {
  if (!isAdminRole(req.user.role)) throw mustBeAdmin();
  const { legacy, ...changes } = readChanges(req);
  await doUpdateUser(req.app, req.realm, req.user, async (tx) => {
    const u = await find(tx);
    if (u && changes.role === undefined) {
      // Legacy clients name the role by two booleans; false only demotes a user who has that role.
      if (legacy.isAdmin === true) changes.role = Role.ADMINISTRATOR;
      else if (legacy.isGuest === true) changes.role = Role.GUEST;
      else if (legacy.isAdmin === false && isAdminRole(u.role)) changes.role = Role.MEMBER;
      else if (legacy.isGuest === false && u.role === Role.GUEST) changes.role = Role.MEMBER;
    }
    return u;
  }, changes);
  return {};
}

const updateById = authed(async (req) => {
  const id = toInt(req.pathParams.user_id, 'user_id');
  return update(req, (tx) => userById(tx, req.realm.id, id));
});

const updateByEmail = authed(async (req) => {
  const email = req.pathParams.email;
  return update(req, (tx) => userByEmailFor(tx, req.user, email));
});

const deactivate = authed(async (req) => {
  const id = toInt(req.pathParams.user_id, 'user_id');
  const p = req.params;
  const actions = p.json('actions', vActions) ?? {};
  const comment = p.str('deactivation_notification_comment') ?? null;
  if (comment !== null && [...comment].length > MAX_DEACTIVATION_COMMENT) {
    throw invalidParam(`deactivation_notification_comment is too long (limit: ${MAX_DEACTIVATION_COMMENT} characters)`, 'deactivation_notification_comment');
  }
  await doDeactivateUser(req.app, req.realm, req.user, id, actions, comment);
  return {};
});

const reactivate = authed(async (req) => {
  await doReactivateUser(req.app, req.realm, req.user, toInt(req.pathParams.user_id, 'user_id'));
  return {};
});

const getProfileFields = authed(async (req) => {
  const fields = await req.app.store.read((tx) => realmFields(tx, req.realm.id));
  return { custom_fields: fields.map(presentField) };
});

const createProfileField = authed(async (req) => {
  const p = req.params;
  const type = p.reqInt('field_type');
  if (!(type in FIELD_TYPE_NAMES)) throw invalidParam('Invalid field type.', 'field_type');
  const id = await doCreateProfileField(req.app, req.realm, req.user, {
    name: p.str('name') ?? '',
    hint: p.str('hint') ?? '',
    type,
    fieldData: p.str('field_data') ?? '',
    displayInProfileSummary: p.bool('display_in_profile_summary', false),
    required: p.bool('required', false),
    editableByUser: p.bool('editable_by_user', true),
  });
  return { id };
});

export const routes: RouteList = [
  ['users/{user_id:int}', { PATCH: updateById, DELETE: deactivate }],
  ['users/{user_id:int}/reactivate', { POST: reactivate }],
  ['users/{email}', { PATCH: updateByEmail }],
  ['realm/profile_fields', { GET: getProfileFields, POST: createProfileField }],
];
