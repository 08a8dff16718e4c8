// A parameter decoded by the route's own parser (the original's loose forms: JSON-quoted or bare words, anchors), documented by the schema given.
import type { TSchema } from '@sinclair/typebox';
import type { ParamDecl } from './param-types.js';
import { invalidParam } from './params.js';

interface CustomOpts<T> {
  required?: boolean;
  default?: T;
  aliases?: readonly string[];
  description?: string;
  /** Documented as JSON text in its form field. */
  json?: boolean;
  /** NUL bytes pass to the parser (by default they are refused, as str() refuses them). */
  allowNul?: boolean;
}

type HasDefault<O> = O extends { default: infer D } ? (D extends undefined ? false : true) : false;

/**
 * A declared parameter whose text `decode` turns into its value, throwing the original's error.
 * NUL bytes are refused first: neither database can hold or compare them.
 */
export function custom<T, const O extends CustomOpts<T> = CustomOpts<T>>(
  schema: TSchema,
  decode: (text: string, name: string) => T,
  opts: O = {} as O,
): ParamDecl<T> & { required: O['required'] extends true ? true : false; hasDefault: HasDefault<O> } {
  const run = opts.allowNul
    ? decode
    : (text: string, name: string) => {
        if (text.includes('\0')) throw invalidParam(`${name} must not contain null bytes`, name);
        return decode(text, name);
      };
  return {
    schema,
    json: opts.json ?? false,
    required: (opts.required ?? false) as never,
    hasDefault: (opts.default !== undefined) as never,
    default: opts.default,
    aliases: opts.aliases,
    description: opts.description,
    decode: run,
  };
}
