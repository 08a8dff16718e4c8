// The profile_data parameter of PATCH /users/me/profile_data and PATCH /users/{id}: [{id, value}] checked as the original checks it.
import { invalidParam, vObject } from '../core/params.js';
import type { ProfileDataUpdate } from '../lib/profile-fields.js';

/** [{id, value}]: value a string, a list of user IDs, or null to clear. */
export function vProfileData(value: unknown, name: string): ProfileDataUpdate[] {
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
