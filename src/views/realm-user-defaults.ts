// PATCH /realm/user_settings_defaults: the settings new users of the organization start with.
import type { RouteList } from '../http/router.js';
import { endpoint } from '../http/endpoint.js';
import { Type, type ParamDecl } from '../core/param-types.js';
import { USER_SETTINGS, type SettingValue } from '../models/user-settings.js';
import { parseSettingValue } from '../lib/user-settings.js';
import { DEFAULTABLE_SETTINGS } from '../lib/realm-user-defaults.js';
import { doUpdateRealmUserDefaults } from '../actions/realm-user-defaults.js';

const SCHEMA = { bool: Type.Boolean(), int: Type.Integer(), str: Type.String() };

/** One declared parameter per setting, checked as PATCH /settings checks it. */
const params: Record<string, ParamDecl<SettingValue> & { required: false; hasDefault: false }> = Object.fromEntries(
  DEFAULTABLE_SETTINGS.map((name) => [name, { schema: SCHEMA[USER_SETTINGS[name].type], json: false, required: false, hasDefault: false, decode: (text: string) => parseSettingValue(name, text) }]),
);

const update = endpoint({
  summary: 'Update realm-level defaults of user settings',
  params,
  response: Type.Object({}),
  run: async (req, a) => {
    const changes = new Map<string, SettingValue>();
    for (const name of DEFAULTABLE_SETTINGS) if (a[name] !== undefined) changes.set(name, a[name]);
    await doUpdateRealmUserDefaults(req.app, req.realm, req.user, changes);
    return {};
  },
});

export const routes: RouteList = [['realm/user_settings_defaults', { PATCH: update }]];
