// Parameter parsers shared by the channel and subscription views.
import { ApiError } from '../../core/api-error.js';
import { invalidParam, type Params } from '../../core/params.js';

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

/** A string parameter that clients may send JSON-encoded or bare. */
export function looseString(p: Params, name: string): string | undefined {
  const v = p.str(name);
  if (v === undefined) return undefined;
  const t = v.trim();
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

/** message_retention_days: "realm_default" (null), "unlimited" (-1) or a positive number of days. */
export function retentionParam(p: Params): number | null | undefined {
  const v = looseString(p, 'message_retention_days');
  if (v === undefined) return undefined;
  if (v === 'realm_default') return null;
  if (v === 'unlimited') return -1;
  if (/^\d+$/.test(v) && Number(v) >= 1 && Number.isSafeInteger(Number(v))) return Number(v);
  throw invalidParam(`Bad value for 'message_retention_days': ${v}`, 'message_retention_days');
}

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
