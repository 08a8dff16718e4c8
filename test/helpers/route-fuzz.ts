// What the route fuzz tests share: the declared routes they walk, values drawn from a declaration's schema, concrete paths.
import fc from 'fast-check';
import { allRoutes } from '../../src/http/routes.js';
import { isDeclared, type DeclaredHandler } from '../../src/http/endpoint.js';
import { NON_API_ROUTE } from '../../src/http/router.js';

export type Schema = Record<string, any>;

export interface Route {
  method: string;
  pattern: string;
  handler: DeclaredHandler;
}

/**
 * Every declared route. Without `web`, only the API's (under /api/v1); the long-poll (it holds by design)
 * and the OpenAPI document (it takes no input) are left out unless `events` asks for the long-poll.
 */
export function declaredRoutes(opts: { web?: boolean; events?: boolean } = {}): Route[] {
  const out: Route[] = [];
  for (const [pattern, methods] of allRoutes()) {
    if (pattern.startsWith(NON_API_ROUTE) && !opts.web) continue;
    if ((pattern === 'events' && !opts.events) || pattern === 'openapi.json') continue;
    for (const [method, handler] of Object.entries(methods)) if (handler && isDeclared(handler)) out.push({ method, pattern, handler });
  }
  return out;
}

/** The URL path of a route pattern: under /api/v1, or at the root for the routes outside the API. */
export function routePath(pattern: string, segments: string[]): string {
  let i = 0;
  const filled = pattern.replace(/\{(\w+)(:int|:path)?\}/g, () => segments[i++]);
  return filled.startsWith(NON_API_ROUTE) ? filled.slice(NON_API_ROUTE.length) : `/api/v1/${filled}`;
}

/** The path segments of a pattern, in order: name and whether the route declares it an integer. */
export function pathSegments(pattern: string): { name: string; isInt: boolean }[] {
  return [...pattern.matchAll(/\{(\w+)(:int|:path)?\}/g)].map((m) => ({ name: m[1], isInt: m[2] === ':int' }));
}

/** Leaf values a caller wants mixed into the schema's own (IDs and names of someone else's data). */
export interface Leaves {
  int?: fc.Arbitrary<number>;
  str?: fc.Arbitrary<string>;
}

/** Values a schema allows (the shapes a careful client sends), small and near the edges; `leaves` joins in at every leaf. */
export function valid(schema: Schema, depth = 0, leaves: Leaves = {}): fc.Arbitrary<unknown> {
  if ('const' in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.anyOf)) return fc.oneof(...(schema.anyOf as Schema[]).map((s) => valid(s, depth, leaves)));
  switch (schema.type) {
    case 'integer': {
      const min = schema.minimum ?? -2147483648;
      const max = schema.maximum ?? 2147483647;
      const own = fc.oneof(fc.integer({ min: Math.max(min, 0), max: Math.max(Math.min(max, 12), Math.max(min, 0)) }), fc.integer({ min, max }), fc.constantFrom(min, max));
      return leaves.int ? fc.oneof(leaves.int, own) : own;
    }
    case 'number':
      return fc.double({ noNaN: true, noDefaultInfinity: true, min: schema.minimum, max: schema.maximum });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'string': {
      // A caller with its own names leaves out this file's (an address it may count as a secret).
      const names = leaves.str ? ['general', 'fuzz', '', ' '] : ['general', 'fuzz', 'owner@example.com', '', ' '];
      const own = fc.oneof(fc.constantFrom(...names), fc.string({ maxLength: Math.min(schema.maxLength ?? 40, 40) }));
      return leaves.str ? fc.oneof(leaves.str, own) : own;
    }
    case 'array':
      return depth > 3 ? fc.constant([]) : fc.array(valid(schema.items ?? {}, depth + 1, leaves), { maxLength: 3 });
    case 'object': {
      if (depth > 3) return fc.constant({});
      const props = (schema.properties ?? {}) as Record<string, Schema>;
      const required = new Set<string>(schema.required ?? []);
      const entries = Object.entries(props).map(([k, v]) => [k, valid(v, depth + 1, leaves)] as const);
      if (!entries.length) return fc.dictionary(fc.string({ maxLength: 8 }), fc.oneof(fc.integer(), fc.string({ maxLength: 8 })), { maxKeys: 2 });
      return fc.record(Object.fromEntries(entries), { requiredKeys: [...required].filter((k) => k in props) });
    }
    default: {
      const own = fc.oneof(fc.integer({ min: 0, max: 5 }), fc.string({ maxLength: 10 }), fc.boolean(), fc.constant(null));
      return leaves.int ? fc.oneof(leaves.int, own) : own;
    }
  }
}
