// Checks observed answers and events against the original's OpenAPI description (../shared/reference): fields it does not define are reported.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';
import { DOCUMENTED_EXTRAS } from './conformance-extras.js';

type Schema = Record<string, any>;

const REFERENCE = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../../../shared/reference/zulip-openapi.yaml');
const SOURCE_REFERENCE = path.resolve(process.cwd(), '../shared/reference/zulip-openapi.yaml');

/** Where the reference is, or null (a fresh clone without ../shared). */
export function referencePath(): string | null {
  for (const p of [SOURCE_REFERENCE, REFERENCE]) if (fs.existsSync(p)) return p;
  return null;
}

/**
 * The reference parsed: YAML parsing takes seconds and nearly every test process checks answers, so
 * the first parse is kept as JSON in the temporary directory (keyed by the file's size and mtime) and
 * later processes read that in milliseconds.
 */
export function loadReferenceDocument(file: string): Record<string, any> {
  const st = fs.statSync(file);
  const cache = path.join(os.tmpdir(), `parley-reference-${st.size}-${Math.trunc(st.mtimeMs)}.json`);
  try {
    return JSON.parse(fs.readFileSync(cache, 'utf8')) as Record<string, any>;
  } catch {
    const doc = parse(fs.readFileSync(file, 'utf8')) as Record<string, any>;
    // Written whole then renamed, so a concurrent reader never sees half a file.
    const part = `${cache}.${process.pid}`;
    try {
      fs.writeFileSync(part, JSON.stringify(doc));
      fs.renameSync(part, cache);
    } catch {
      fs.rmSync(part, { force: true });
    }
    return doc;
  }
}

/** Parley's renamed words → the reference's (shared/README.md). */
const FIELD_NAMES: Record<string, string> = {
  service_feature_level: 'zulip_feature_level',
  service_version: 'zulip_version',
  service_merge_base: 'zulip_merge_base',
  has_videoprovider_token: 'has_zoom_token',
  // Authentication backends named by brand in the original (src/views/server-settings.ts).
  provider_a: 'github',
  provider_b: 'azuread',
  provider_c: 'gitlab',
  provider_d: 'apple',
  provider_e: 'google',
  provider_f: 'discord',
};

function referenceName(field: string): string {
  return FIELD_NAMES[field] ?? field;
}

function referencePathOf(apiPath: string): string {
  return apiPath.replace(/^\/calls\/videoprovider\//, '/calls/zoom/');
}

interface Operation {
  method: string;
  pattern: RegExp;
  template: string;
  schema: Schema | undefined;
}

export class Reference {
  private readonly doc: Schema;
  private readonly operations: Operation[] = [];

  constructor(file: string) {
    this.doc = loadReferenceDocument(file);
    for (const [template, item] of Object.entries(this.doc.paths as Record<string, Schema>)) {
      const pattern = new RegExp('^' + template.replace(/\{[^}]+\}/g, '[^/]+') + '$');
      for (const method of ['get', 'post', 'patch', 'put', 'delete']) {
        const op = item[method];
        if (!op) continue;
        const schema = this.deref(op.responses?.['200'])?.content?.['application/json']?.schema;
        this.operations.push({ method: method.toUpperCase(), pattern, template, schema });
      }
    }
    // Literal paths before templated ones (/users/me before /users/{user_id}).
    this.operations.sort((a, b) => (a.template.includes('{') ? 1 : 0) - (b.template.includes('{') ? 1 : 0));
  }

  private deref(s: Schema | undefined): Schema | undefined {
    let out = s;
    for (let i = 0; out && out.$ref && i < 20; i++) {
      const parts = (out.$ref as string).replace(/^#\//, '').split('/');
      out = parts.reduce<any>((node, key) => node?.[key.replace(/~1/g, '/').replace(/~0/g, '~')], this.doc);
    }
    return out;
  }

  /** The success schema of an operation, by method and API path (without /api/v1). */
  operation(method: string, apiPath: string): Operation | undefined {
    const p = referencePathOf('/' + apiPath.split('?')[0].replace(/^\/+/, '').replace(/\/+$/, ''));
    return this.operations.find((o) => o.method === method && o.pattern.test(p));
  }

  /** A schema and its allOf parts, dereferenced. */
  private flatten(s: Schema | undefined): Schema[] {
    const d = this.deref(s);
    if (!d) return [];
    return [d, ...((d.allOf as Schema[] | undefined) ?? []).flatMap((x) => this.flatten(x))];
  }

  /** The alternatives a value may match: oneOf/anyOf branches, each with its allOf parts merged. */
  private alternatives(s: Schema | undefined): Schema[][] {
    const parts = this.flatten(s);
    const branches = parts.flatMap((p) => [...((p.oneOf as Schema[]) ?? []), ...((p.anyOf as Schema[]) ?? [])]);
    if (!branches.length) return [parts];
    return branches.map((b) => [...parts.filter((p) => !p.oneOf && !p.anyOf), ...this.flatten(b)]);
  }

  /** Field paths in `value` that `schema` does not define. */
  extras(schema: Schema | undefined, value: unknown, where: string, out: string[] = []): string[] {
    if (value === null || typeof value !== 'object' || !schema) return out;
    const alts = this.alternatives(schema);
    if (Array.isArray(value)) {
      const items = alts.flat().map((p) => p.items).filter(Boolean);
      if (!items.length) return out;
      value.forEach((v) => {
        // The first item form that defines every field of this item; else the first one's report.
        const reports = items.map((it) => this.extras(it, v, `${where}[]`));
        const best = reports.find((r) => r.length === 0) ?? reports[0];
        out.push(...best);
      });
      return out;
    }
    const fitting = alts.filter((parts) => matchesConstants(parts, value as Record<string, unknown>, (x) => this.deref(x)));
    // Forms that name the value's type and op outrank forms that leave them open.
    const score = (parts: Schema[]) => constantsNamed(parts, value as Record<string, unknown>, (x) => this.deref(x));
    const best = Math.max(0, ...fitting.map(score));
    const reports = fitting.filter((parts) => score(parts) === best).map((parts) => this.objectExtras(parts, value as Record<string, unknown>, where));
    if (!reports.length) return out;
    out.push(...(reports.find((r) => r.length === 0) ?? reports.reduce((a, b) => (b.length < a.length ? b : a))));
    return out;
  }

  private objectExtras(parts: Schema[], value: Record<string, unknown>, where: string): string[] {
    const out: string[] = [];
    const props = new Map<string, Schema[]>();
    let open = true;
    const valueSchemas: Schema[] = [];
    for (const p of parts) {
      if (p.properties) {
        open = false;
        for (const [k, v] of Object.entries(p.properties as Record<string, Schema>)) props.set(k, [...(props.get(k) ?? []), v]);
      }
      if (p.additionalProperties && typeof p.additionalProperties === 'object') valueSchemas.push(p.additionalProperties);
      if (p.additionalProperties === false) open = false;
    }
    if (valueSchemas.length) {
      // A dictionary keyed by IDs or names: its values are checked, its keys are free.
      for (const [k, v] of Object.entries(value)) if (!props.has(k)) this.extras(valueSchemas[0], v, `${where}.${k}`, out);
    }
    if (open && !props.size) return out;
    for (const [k, v] of Object.entries(value)) {
      const defs = props.get(referenceName(k));
      if (!defs) {
        if (!valueSchemas.length) out.push(`${where}.${k}`);
        continue;
      }
      const typed = defs.map((d) => this.deref(d)!).filter((d) => Object.keys(d).length > 0);
      for (const d of typed.slice(0, 1)) this.extras(d, v, `${where}.${k}`, out);
    }
    return out;
  }
}

/** Whether a branch's fixed `type`/`op` words (enum of one) agree with the value's. */
function matchesConstants(parts: Schema[], value: Record<string, unknown>, deref: (s: Schema) => Schema | undefined): boolean {
  for (const key of ['type', 'op']) {
    for (const p of parts) {
      const allowed = p.properties?.[key] ? enumOf(p.properties[key], deref) : undefined;
      if (allowed && value[key] !== undefined && !allowed.includes(value[key])) return false;
    }
  }
  return true;
}

/** The words a schema allows (its enum, or an enum among its allOf parts). */
function enumOf(schema: Schema, deref: (s: Schema) => Schema | undefined): unknown[] | undefined {
  const d = deref(schema);
  if (!d) return undefined;
  if (Array.isArray(d.enum)) return d.enum as unknown[];
  for (const part of (d.allOf as Schema[] | undefined) ?? []) {
    const found = enumOf(part, deref);
    if (found) return found;
  }
  return undefined;
}

/** How many of `type` and `op` a form fixes to the value's words. */
function constantsNamed(parts: Schema[], value: Record<string, unknown>, deref: (s: Schema) => Schema | undefined): number {
  let n = 0;
  for (const key of ['type', 'op']) {
    if (parts.some((p) => (p.properties?.[key] ? enumOf(p.properties[key], deref)?.includes(value[key]) : false))) n++;
  }
  return n;
}

let loaded: Reference | null | undefined;

/** The reference, loaded once per process; null when absent. */
export function reference(): Reference | null {
  if (loaded === undefined) {
    const file = referencePath();
    loaded = file ? new Reference(file) : null;
  }
  return loaded;
}

/** Whether answers are checked (PARLEY_CONFORMANCE=0 turns it off). */
export const conformanceOn = process.env.PARLEY_CONFORMANCE !== '0';

/** Fields of an answer (and of the events it carries) the reference does not define and docs/decisions.md does not list. */
export function unexplainedFields(method: string, apiPath: string, body: unknown): string[] {
  const ref = reference();
  if (!ref || typeof body !== 'object' || body === null || (body as { result?: unknown }).result !== 'success') return [];
  const op = ref.operation(method, apiPath);
  if (!op?.schema) return [];
  // Events are checked through GET /events' schema: each event against the form its type and op name.
  const found = ref.extras(op.schema, body, `${method} ${op.template}`);
  return [...new Set(found)].filter((f) => !DOCUMENTED_EXTRAS.some((d) => f === d || f.startsWith(d + '.') || f.startsWith(d + '[')));
}
