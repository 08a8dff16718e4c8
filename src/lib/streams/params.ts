// Parameter parsers shared by the channel and subscription views.
import { ApiError, badRequest } from '../../core/api-error.js';
import { invalidParam, type Params } from '../../core/params.js';
import { INT32_MAX, INT32_MIN, Type, id, json } from '../../core/param-types.js';
import { custom } from '../../core/param-custom.js';
import { vGroupSetting } from './permissions.js';

/** include_subscribers: true, false or "partial" (plain or JSON-quoted). */
export function includeSubscribersParam(p: Params): boolean | 'partial' {
  const v = p.str('include_subscribers');
  if (v === undefined) return false;
  const t = v.trim().toLowerCase().replace(/^"(.*)"$/, '$1');
  if (t === 'true') return true;
  if (t === 'false') return false;
  if (t === 'partial') return 'partial';
  throw new ApiError('Invalid include_subscribers', 'BAD_REQUEST', 400, { var_name: 'include_subscribers' });
}

/** Text that clients may send JSON-encoded ('"inherit"') or bare: the string it holds. */
export function looseText(text: string): string {
  const t = text.trim();
  if (t.startsWith('"')) {
    try {
      const parsed: unknown = JSON.parse(t);
      if (typeof parsed === 'string') return parsed;
    } catch {
      // Not JSON: use the text as sent.
    }
  }
  return t;
}

/** message_retention_days: "realm_default" (null), "unlimited" (-1) or a positive number of days (JSON-quoted or bare). */
function parseRetention(text: string): number | null {
  const v = looseText(text);
  if (v === 'realm_default') return null;
  if (v === 'unlimited') return -1;
  if (/^\d+$/.test(v) && Number(v) >= 1 && Number(v) <= INT32_MAX) return Number(v);
  throw invalidParam(`Bad value for 'message_retention_days': ${v}`, 'message_retention_days');
}

/** The declared message_retention_days parameter. */
export const retentionDays = () =>
  custom(Type.Union([Type.Integer({ minimum: -1, maximum: INT32_MAX }), Type.Null()]), parseRetention, {
    description: '"realm_default", "unlimited" or a number of days.',
  });

/** include_subscribers: true, false or "partial" (plain or JSON-quoted), as a declared parameter. */
export const includeSubscribers = () =>
  custom(
    Type.Union([Type.Boolean(), Type.Literal('partial')]),
    (text): boolean | 'partial' => {
      const t = text.trim().toLowerCase().replace(/^"(.*)"$/, '$1');
      if (t === 'true') return true;
      if (t === 'false') return false;
      if (t === 'partial') return 'partial';
      throw new ApiError('Invalid include_subscribers', 'BAD_REQUEST', 400, { var_name: 'include_subscribers' });
    },
    { default: false },
  );

/** IDs as the original reads them: any 32-bit integers (an unknown or negative one is refused where it is looked up). */
export const Int32List = Type.Array(Type.Integer({ minimum: INT32_MIN, maximum: INT32_MAX }));

/** A group-setting value: a group ID, or an anonymous group of direct members and subgroups. */
export const GroupSetting = Type.Union([Type.Integer({ minimum: INT32_MIN, maximum: INT32_MAX }), Type.Object({ direct_members: Int32List, direct_subgroups: Int32List })]);

/** A declared group-setting parameter (JSON), checked by vGroupSetting. */
export const groupSettingParam = () => json(GroupSetting, { validate: vGroupSetting });

/** A channel ID in the path: one past 32 bits names no channel, and gets that answer. */
export const streamIdPath = { stream_id: id({ invalid: () => badRequest('Invalid channel ID') }) };

/** The `subscriptions` list of POST /users/me/subscriptions: [{name, description?}]. */
export function vSubscriptionList(value: unknown, name: string): { name: string; description?: string }[] {
  if (!Array.isArray(value)) throw invalidParam(`${name} is not a list`, name);
  return value.map((item, i) => {
    if (typeof item !== 'object' || item === null || Array.isArray(item)) throw invalidParam(`${name}[${i}] is not a dict`, name);
    const o = item as Record<string, unknown>;
    if (!('name' in o)) throw invalidParam(`name key is missing from ${name}[${i}]`, name);
    if (typeof o.name !== 'string') throw invalidParam(`${name}[${i}]["name"] is not a string`, name);
    if (o.description !== undefined && typeof o.description !== 'string') throw invalidParam(`${name}[${i}]["description"] is not a string`, name);
    return { name: o.name, description: o.description as string | undefined };
  });
}
