// PATCH /realm: organization settings; one declared parameter per row of the settings table.
import type { RouteList } from '../http/router.js';
import { endpoint } from '../http/endpoint.js';
import { Type, bool, int, json, str, type ParamDecl } from '../core/param-types.js';
import { badRequest, invalidParam, toInt } from '../core/params.js';
import { REALM_SETTING_PROPS, type RealmSettingProp } from '../models/realm-setting-props.js';
import { GroupSetting } from '../lib/streams/params.js';
import { vGroupSetting } from '../lib/streams/permissions.js';
import { checkSettingPermissions, doUpdateRealmSettings, type GroupSettingChange } from '../actions/realm-settings.js';

type Optional = ParamDecl & { required: false; hasDefault: false };

const withValue = (text: string, value: unknown) => text.replace('{value}', String(value));

/** A JSON time limit: a positive integer, or one of the special words ("unlimited"). */
function limit(special: Record<string, number | null>): Optional {
  return json(Type.Union([Type.Integer({ minimum: 1, maximum: 2147483647 }), ...Object.keys(special).map((w) => Type.Literal(w))]), {
    validate: (v, name) => {
      if (typeof v === 'string' && v in special) return special[v];
      if (typeof v !== 'number' || !Number.isSafeInteger(v) || v <= 0 || v > 2147483647) throw invalidParam(`Bad value for '${name}': ${JSON.stringify(v)}`, name);
      return v;
    },
  }) as Optional;
}

const GroupChange = Type.Object({ new: GroupSetting, old: Type.Optional(GroupSetting) });

function vGroupChange(v: unknown, name: string): GroupSettingChange {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw invalidParam(`${name} is not a dict`, name);
  const o = v as Record<string, unknown>;
  const extra = Object.keys(o).filter((k) => k !== 'new' && k !== 'old');
  if (extra.length) throw invalidParam(`${name} has unexpected keys: ${extra.join(', ')}`, name);
  if (!('new' in o)) throw invalidParam(`${name}["new"] field is missing: Field required`, name);
  const out: GroupSettingChange = { new: vGroupSetting(o.new, `${name}.new`) };
  if ('old' in o) out.old = vGroupSetting(o.old, `${name}.old`);
  return out;
}

function paramOf(prop: RealmSettingProp): Optional {
  switch (prop.kind) {
    case 'bool':
      return bool() as Optional;
    case 'str':
      return str({ maxLength: prop.maxLength }) as Optional;
    case 'int':
      return int({ min: prop.min, max: prop.max, invalid: prop.invalid }) as Optional;
    case 'limit':
      return limit(prop.special);
    case 'words':
      return {
        schema: Type.Union(prop.values.map((w) => Type.Literal(w))),
        json: false,
        required: false,
        hasDefault: false,
        decode: (text, name) => {
          if (!prop.values.includes(text)) throw invalidParam(withValue(prop.invalid, text), name);
          return text;
        },
      };
    case 'codes':
      return {
        schema: Type.Union(prop.values.map((c) => Type.Literal(c))),
        json: false,
        required: false,
        hasDefault: false,
        decode: (text, name) => {
          const n = toInt(text, name);
          if (!prop.values.includes(n)) throw invalidParam(withValue(prop.invalid, n), name);
          return n;
        },
      };
    case 'group':
      return json(GroupChange, { validate: vGroupChange }) as Optional;
    case 'channel':
      // -1 turns the feature off; any other value must name a channel, private where the setting says (checked in the action).
      return int({ min: -1, max: 2147483647, invalid: () => badRequest('Invalid channel ID') }) as Optional;
    case 'auth':
      return json(Type.Record(Type.String(), Type.Boolean())) as Optional;
  }
}

const params: Record<string, Optional> = Object.fromEntries(Object.entries(REALM_SETTING_PROPS).map(([name, prop]) => [name, paramOf(prop)]));

const update = endpoint({
  summary: 'Update organization settings',
  params,
  // Administrators only, refused before any parameter is read, as the original's decorator does.
  check: (req) => checkSettingPermissions(req.user, []),
  response: Type.Object({}),
  run: async (req, a) => {
    const changes = new Map<string, unknown>();
    for (const name of Object.keys(REALM_SETTING_PROPS)) if (a[name] !== undefined) changes.set(name, a[name]);
    await doUpdateRealmSettings(req.app, req.realm, req.user, changes);
    return {};
  },
});

export const routes: RouteList = [['realm', { PATCH: update }]];
