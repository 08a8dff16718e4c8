// Typed request parameters and the JSON validators, with the original's exact error texts; below every other layer.
import { badRequest, ApiError } from './api-error.js';

/** Raw parameters of a request: every value arrives as a string (form, multipart or query). */
export type RawParams = Map<string, string>;

export interface ParamContext {
  raw: RawParams;
  /** Names consumed by the view; the rest are reported as ignored_parameters_unsupported. */
  used: Set<string>;
}

export const missing = (name: string) => new ApiError(`Missing '${name}' argument`, 'REQUEST_VARIABLE_MISSING', 400, { var_name: name });
const invalid = (msg: string, name: string) => new ApiError(msg, 'BAD_REQUEST', 400, { var_name: name });

/** Every request reads its parameters through here, so it allocates nothing. */
function take(ctx: ParamContext, name: string, aliases?: string[]): string | undefined {
  const v = ctx.raw.get(name);
  if (v !== undefined) {
    ctx.used.add(name);
    return v;
  }
  if (aliases) {
    for (const n of aliases) {
      const a = ctx.raw.get(n);
      if (a !== undefined) {
        ctx.used.add(n);
        return a;
      }
    }
  }
  return undefined;
}

const NONE_IGNORED = Object.freeze([]) as unknown as string[];

function parseJson(text: string, name: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw invalid(`Argument "${name}" is not valid JSON.`, name);
  }
}

export function toInt(text: string, name: string): number {
  const t = text.trim();
  if (!/^-?\d+$/.test(t)) throw invalid(`${name} is not an integer`, name);
  const n = Number(t);
  if (!Number.isSafeInteger(n)) throw invalid(`${name} is too large`, name);
  return n;
}

export function toBool(text: string, name: string): boolean {
  const t = text.trim().toLowerCase();
  if (t === 'true' || t === '1') return true;
  if (t === 'false' || t === '0') return false;
  throw invalid(`${name} is not a boolean`, name);
}

/** Accessors a view uses to read its declared parameters. */
export class Params {
  constructor(readonly ctx: ParamContext) {}

  has(name: string): boolean {
    return this.ctx.raw.has(name);
  }

  str(name: string, opts?: { aliases?: string[] }): string | undefined {
    return take(this.ctx, name, opts?.aliases);
  }

  reqStr(name: string, opts?: { aliases?: string[] }): string {
    const v = this.str(name, opts);
    if (v === undefined) throw missing(name);
    return v;
  }

  int(name: string): number | undefined {
    const v = take(this.ctx, name);
    return v === undefined ? undefined : toInt(v, name);
  }

  reqInt(name: string): number {
    const v = this.int(name);
    if (v === undefined) throw missing(name);
    return v;
  }

  bool(name: string, fallback: boolean): boolean {
    const v = take(this.ctx, name);
    return v === undefined ? fallback : toBool(v, name);
  }

  optBool(name: string): boolean | undefined {
    const v = take(this.ctx, name);
    return v === undefined ? undefined : toBool(v, name);
  }

  /** A JSON-encoded parameter, checked by `validate` (which throws ApiError with the var name). */
  json<T>(name: string, validate: (value: unknown, name: string) => T): T | undefined {
    const v = take(this.ctx, name);
    if (v === undefined) return undefined;
    return validate(parseJson(v, name), name);
  }

  reqJson<T>(name: string, validate: (value: unknown, name: string) => T): T {
    const v = this.json(name, validate);
    if (v === undefined) throw missing(name);
    return v;
  }

  /** Names the client sent that no accessor read. */
  ignored(): string[] {
    // Only names that were sent are ever marked used: as many used as sent means none ignored.
    if (this.ctx.used.size === this.ctx.raw.size) return NONE_IGNORED;
    return [...this.ctx.raw.keys()].filter((k) => !this.ctx.used.has(k));
  }
}

// Validators for JSON values, with the original server's message forms.

export function vIntList(value: unknown, name: string): number[] {
  if (!Array.isArray(value)) throw invalid(`${name} is not a list`, name);
  return value.map((x, i) => {
    if (typeof x !== 'number' || !Number.isSafeInteger(x)) throw invalid(`${name}[${i}] is not an integer`, name);
    return x;
  });
}

export function vStrList(value: unknown, name: string): string[] {
  if (!Array.isArray(value)) throw invalid(`${name} is not a list`, name);
  return value.map((x, i) => {
    if (typeof x !== 'string') throw invalid(`${name}[${i}] is not a string`, name);
    return x;
  });
}

export function vBool(value: unknown, name: string): boolean {
  if (typeof value !== 'boolean') throw invalid(`${name} is not a boolean`, name);
  return value;
}

export function vObject(value: unknown, name: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw invalid(`${name} is not a dict`, name);
  return value as Record<string, unknown>;
}

/** A list of either all integers or all strings (user IDs or emails, channel IDs or names). */
export function vIntOrStrList(value: unknown, name: string): number[] | string[] {
  if (!Array.isArray(value)) throw invalid(`${name} is not a list`, name);
  if (value.every((x) => typeof x === 'number' && Number.isSafeInteger(x))) return value as number[];
  if (value.every((x) => typeof x === 'string')) return value as string[];
  throw invalid(`${name} is not a list of integers or strings`, name);
}

export function oneOf<T extends string>(value: string, allowed: readonly T[], name: string): T {
  if (!(allowed as readonly string[]).includes(value)) throw invalid(`Invalid ${name}`, name);
  return value as T;
}

export { invalid as invalidParam, badRequest };
