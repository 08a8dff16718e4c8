// Parameter declarations: the JSON Schema of a route parameter (TypeBox) with its decoding from form text and the original's error texts.
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import { invalidParam, toBool, toInt } from './params.js';

/** Both databases store integer columns as 32-bit signed values: no larger value may reach SQL. */
export const INT32_MAX = 2147483647;
export const INT32_MIN = -2147483648;

export interface ParamDecl<T = unknown> {
  /** The decoded value's JSON Schema (the OpenAPI document's parameter schema). */
  readonly schema: TSchema;
  /** Sent as JSON text in the form (lists and objects; the original's `Json[...]`). */
  readonly json: boolean;
  readonly required: boolean;
  /** The value a missing parameter takes (undefined: none). */
  readonly default?: T;
  /** Older names still accepted (documented as deprecated parameters). */
  readonly aliases?: readonly string[];
  readonly description?: string;
  /** Form text → value, throwing the original's error for bad input. */
  readonly decode: (text: string, name: string) => T;
}

/** What a parameter list decodes to: required or defaulted ones are always present. */
export type ParamValues<P extends Record<string, ParamDecl>> = {
  [K in keyof P]: P[K] extends ParamDecl<infer T> ? (P[K]['required'] extends true ? T : P[K] extends { hasDefault: true } ? T : T | undefined) : never;
};

/** Path parameters are always present. */
export type PathValues<P extends Record<string, ParamDecl>> = { [K in keyof P]: P[K] extends ParamDecl<infer T> ? T : never };

type DefaultOf<O> = O extends { default: infer D } ? (D extends undefined ? false : true) : false;

interface Common<T> {
  default?: T;
  aliases?: readonly string[];
  description?: string;
}

type Decl<T, R extends boolean, D extends boolean> = ParamDecl<T> & { required: R; hasDefault: D };

function decl<T, R extends boolean, D extends boolean>(schema: TSchema, json: boolean, required: R, opts: Common<T>, decode: (text: string, name: string) => T): Decl<T, R, D> {
  return { schema, json, required, hasDefault: opts.default !== undefined, default: opts.default, aliases: opts.aliases, description: opts.description, decode } as Decl<T, R, D>;
}

interface IntOpts extends Common<number> {
  min?: number;
  max?: number;
  required?: boolean;
  /** The error for an out-of-range value: its text, or the error itself (default "<name> is too small/large"). */
  invalid?: string | (() => Error);
}

/** An integer, bounded to 32 bits unless narrower bounds are given. */
export function int<const O extends IntOpts>(opts: O = {} as O): Decl<number, O['required'] extends true ? true : false, DefaultOf<O>> {
  const min = opts.min ?? INT32_MIN;
  const max = opts.max ?? INT32_MAX;
  return decl(Type.Integer({ minimum: min, maximum: max, default: opts.default }), false, (opts.required ?? false) as never, opts, (text, name) => {
    const n = toInt(text, name);
    if (n >= min && n <= max) return n;
    if (typeof opts.invalid === 'function') throw opts.invalid();
    throw invalidParam(opts.invalid ?? `${name} is too ${n < min ? 'small' : 'large'}`, name);
  });
}

/** A row ID (path or form): 0 to 2³¹−1, what an integer primary key holds on both databases. */
export function id<const O extends Omit<IntOpts, 'min' | 'max'>>(opts: O = {} as O) {
  return int({ ...opts, min: 0, max: INT32_MAX });
}

interface StrOpts extends Common<string> {
  required?: boolean;
  maxLength?: number;
  /** NUL bytes are refused (PostgreSQL text can neither hold nor be compared with them), unless the route strips them itself. */
  allowNul?: boolean;
  /** The error for a NUL byte, when the route answers it otherwise (a path naming nothing: not found). */
  invalid?: () => Error;
}

/** Text as sent, refusing NUL bytes. */
export function str<const O extends StrOpts>(opts: O = {} as O): Decl<string, O['required'] extends true ? true : false, DefaultOf<O>> {
  return decl(Type.String({ maxLength: opts.maxLength, default: opts.default }), false, (opts.required ?? false) as never, opts, (text, name) => {
    if (!opts.allowNul && text.includes('\0')) throw opts.invalid ? opts.invalid() : invalidParam(`${name} must not contain null bytes`, name);
    if (opts.maxLength !== undefined && text.length > opts.maxLength) throw invalidParam(`${name} is too long (limit: ${opts.maxLength} characters)`, name);
    return text;
  });
}

/** One of a few words; anything else is "Invalid <name>" (or the route's own error). */
export function oneOf<const W extends readonly string[], const O extends Common<W[number]> & { required?: boolean; invalid?: () => Error }>(words: W, opts: O = {} as O): Decl<W[number], O['required'] extends true ? true : false, DefaultOf<O>> {
  return decl(Type.Union(words.map((w) => Type.Literal(w)), { default: opts.default }), false, (opts.required ?? false) as never, opts, (text, name) => {
    if (!(words as readonly string[]).includes(text)) throw opts.invalid ? opts.invalid() : invalidParam(`Invalid ${name}`, name);
    return text as W[number];
  });
}

export function bool<const O extends Common<boolean> & { required?: boolean }>(opts: O = {} as O): Decl<boolean, O['required'] extends true ? true : false, DefaultOf<O>> {
  return decl(Type.Boolean({ default: opts.default }), false, (opts.required ?? false) as never, opts, (text, name) => toBool(text, name));
}

/**
 * A JSON-encoded value (list or object) checked against its schema. Errors take the original's
 * forms: "x is not a list", "x[2] is not an integer", "x is not a dict", else "Invalid x".
 */
export function json<S extends TSchema, T = Static<S>, const O extends Common<T> & { required?: boolean } = Common<T> & { required?: boolean }>(
  schema: S,
  opts: O & { validate?: (value: unknown, name: string) => T } = {} as O,
): Decl<T, O['required'] extends true ? true : false, DefaultOf<O>> {
  const check: TypeCheck<S> = TypeCompiler.Compile(schema);
  const validate = opts.validate;
  return decl(schema, true, (opts.required ?? false) as never, opts, (text, name) => {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw invalidParam(`Argument "${name}" is not valid JSON.`, name);
    }
    // A route's own validator speaks first (its texts are the original's); the schema still bounds what it let through.
    const out = validate ? validate(value, name) : (value as T);
    if (check.Check(value)) return out;
    throw invalidParam(jsonErrorText(check, value, name), name);
  });
}

const KIND_TEXT: Record<string, string> = { array: 'a list', object: 'a dict', integer: 'an integer', number: 'a number', string: 'a string', boolean: 'a boolean' };

function jsonErrorText(check: TypeCheck<TSchema>, value: unknown, name: string): string {
  const first = check.Errors(value).First();
  if (!first) return `Invalid ${name}`;
  const where = name + first.path.split('/').slice(1).map((seg) => (/^\d+$/.test(seg) ? `[${seg}]` : `["${seg}"]`)).join('');
  const type = (first.schema as { type?: unknown }).type;
  const kind = typeof type === 'string' ? KIND_TEXT[type] : undefined;
  const wrongType = kind !== undefined && (type === 'array' ? !Array.isArray(first.value) : type === 'integer' ? !Number.isInteger(first.value) : type === 'object' ? typeof first.value !== 'object' || first.value === null || Array.isArray(first.value) : typeof first.value !== type);
  return wrongType ? `${where} is not ${kind}` : `Invalid ${where}`;
}

/** JSON list of 32-bit IDs. */
export const IdList = Type.Array(Type.Integer({ minimum: 0, maximum: INT32_MAX }));

export { Type };

/** A response part whose schema documents what a lib function returns as a plain record (no stricter TypeScript type). */
export function loose<S extends TSchema>(schema: S) {
  return Type.Unsafe<Record<string, unknown>>(schema);
}
