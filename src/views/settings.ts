// PATCH /settings (and its deprecated aliases /settings/display, /settings/notifications) and the email-change confirmation link.
import type { RouteList } from '../http/router.js';
import { endpoint } from '../http/endpoint.js';
import { badRequest, ApiError } from '../core/api-error.js';
import { missing, vBool, vIntList, vObject } from '../core/params.js';
import { INT32_MAX, INT32_MIN, Type, json, str } from '../core/param-types.js';
import { isAdminRole } from '../models/roles.js';
import { checkEmail, checkFullName } from '../actions/users.js';
import { namedSettings, settingParams } from '../lib/user-settings.js';
import { userByEmail } from '../lib/users.js';
import { realmSettings } from '../lib/realm-settings.js';
import { adminRequired, doUpdateSettings, type BulkTarget } from '../actions/settings.js';
import { doChangeFullName, doChangePassword, doConfirmEmailChange, doStartEmailChange } from '../actions/account.js';

function targetUsers(value: unknown, name: string): BulkTarget {
  const o = vObject(value, name);
  const known = new Set(['user_ids', 'group_ids', 'skip_if_already_edited']);
  const unknown = Object.keys(o).find((k) => !known.has(k));
  if (unknown !== undefined) throw new ApiError(`Invalid ${name}: unexpected key '${unknown}'`, 'BAD_REQUEST', 400, { var_name: name });
  return {
    userIds: o.user_ids === undefined ? [] : vIntList(o.user_ids, `${name}["user_ids"]`),
    groupIds: o.group_ids === undefined ? [] : vIntList(o.group_ids, `${name}["group_ids"]`),
    skipIfAlreadyEdited: o.skip_if_already_edited === undefined ? false : vBool(o.skip_if_already_edited, `${name}["skip_if_already_edited"]`),
  };
}

/** Parameters about the account itself, which target_users cannot apply to others. */
const ACCOUNT_PARAMS = ['full_name', 'email', 'old_password', 'new_password'] as const;

const Int32List = Type.Array(Type.Integer({ minimum: INT32_MIN, maximum: INT32_MAX }));
const TargetUsers = Type.Object({ user_ids: Type.Optional(Int32List), group_ids: Type.Optional(Int32List), skip_if_already_edited: Type.Optional(Type.Boolean()) }, { additionalProperties: false });

/** The parameters, in the order the original checks them: target_users, the table's settings, then the account's. */
const params = {
  target_users: json(TargetUsers, { validate: targetUsers, description: 'Administrators: apply the settings to these users and groups’ members instead.' }),
  ...settingParams(),
  full_name: str(),
  email: str(),
  old_password: str(),
  new_password: str(),
};

/** PATCH /settings, and the same under its deprecated older paths. */
const updateSettings = (summary: string, deprecated: boolean) =>
  endpoint({
    summary,
    deprecated,
    params,
    response: Type.Object({}),
    run: async (req, a) => {
      const { app, realm, user } = req;
      // Everything is parsed and checked before anything changes: one bad value changes nothing.
      const target = a.target_users ?? null;
      const changes = namedSettings(a);
      const { full_name: fullName, email, old_password: oldPassword, new_password: newPassword } = a as Record<(typeof ACCOUNT_PARAMS)[number], string | undefined>;

      if (target) {
        if (!isAdminRole(user.role)) throw adminRequired();
        const account = ACCOUNT_PARAMS.find((n) => (a as Record<string, unknown>)[n] !== undefined);
        if (account) throw badRequest(`'${account}' cannot be changed for other users`);
        await doUpdateSettings(app, realm, user, changes, target);
        return {};
      }

      if (fullName !== undefined) checkFullName(fullName);
      if (email !== undefined) {
        const e = checkEmail(email);
        if (realmSettings(realm).email_changes_disabled === true && !isAdminRole(user.role)) throw badRequest('Email address changes are disabled in this organization.');
        if (e.toLowerCase() !== user.delivery_email.toLowerCase() && (await userByEmail(app.store.db, realm.id, e))) throw badRequest(`Email '${e}' already in use`);
      }
      // The password goes first: a wrong old password must leave every other setting unchanged.
      if (newPassword !== undefined) {
        if (oldPassword === undefined) throw missing('old_password');
        await doChangePassword(app, realm, user, oldPassword, newPassword);
      }
      if (email !== undefined) await doStartEmailChange(app, realm, user, email);
      if (fullName !== undefined) await doChangeFullName(app, realm, user, fullName);
      await doUpdateSettings(app, realm, user, changes, null);
      return {};
    },
  });

/**
 * The link mailed to the new address. GET, because it is followed from an email; POST too, for
 * clients that confirm in the background. The key is the credential: no login is needed.
 */
const confirmEmail = endpoint({
  summary: 'Confirm an email address change',
  auth: 'none',
  params: { key: str({ required: true, description: 'The confirmation key from the link mailed to the new address.' }) },
  response: Type.Object({ email: Type.String() }),
  run: async (req, a) => ({ email: await doConfirmEmailChange(req.app, req.realm, a.key.trim()) }),
});

export const routes: RouteList = [
  ['settings', { PATCH: updateSettings('Update settings', false) }],
  ['settings/display', { PATCH: updateSettings('Update display settings (the older path of PATCH /settings)', true) }],
  ['settings/notifications', { PATCH: updateSettings('Update notification settings (the older path of PATCH /settings)', true) }],
  ['settings/email/confirm', { GET: confirmEmail, POST: confirmEmail }],
];
