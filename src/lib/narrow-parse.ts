// Validates a narrow parameter: a list of [operator, operand] pairs or {operator, operand, negated} objects.
import { invalidParam } from '../core/params.js';
import type { NarrowTerm } from '../models/narrow.js';
import { Type } from '../core/param-types.js';

/** A narrow's JSON Schema: a list of {operator, operand, negated} objects or [operator, operand] pairs (parseNarrow checks the rest). */
export const NarrowSchema = Type.Array(Type.Union([Type.Object({ operator: Type.String(), operand: Type.Unknown(), negated: Type.Optional(Type.Boolean()) }), Type.Array(Type.Unknown())]));

export function parseNarrow(value: unknown, name: string): NarrowTerm[] {
  if (!Array.isArray(value)) throw invalidParam(`${name} is not a list`, name);
  return value.map((el, i) => {
    if (Array.isArray(el)) {
      if (el.length !== 2 || typeof el[0] !== 'string') throw invalidParam(`${name}[${i}] is not a valid narrow term`, name);
      return { operator: el[0], operand: checkOperand(el[1], name, i), negated: false };
    }
    if (el && typeof el === 'object') {
      const o = el as Record<string, unknown>;
      if (typeof o.operator !== 'string' || !('operand' in o)) throw invalidParam(`${name}[${i}] is not a valid narrow term`, name);
      if (o.negated !== undefined && typeof o.negated !== 'boolean') throw invalidParam(`${name}[${i}]["negated"] is not a boolean`, name);
      return { operator: o.operator, operand: checkOperand(o.operand, name, i), negated: o.negated === true };
    }
    throw invalidParam(`${name}[${i}] is not a valid narrow term`, name);
  });
}

function checkOperand(v: unknown, name: string, i: number): string | number | number[] {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' && Number.isSafeInteger(v)) return v;
  if (Array.isArray(v) && v.every((x) => typeof x === 'number' && Number.isSafeInteger(x))) return v as number[];
  throw invalidParam(`${name}[${i}] has an invalid operand`, name);
}
