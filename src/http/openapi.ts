// The OpenAPI 3.1 document of every route the server serves, generated from the route declarations (built once, at start).
import type { TSchema } from '@sinclair/typebox';
import type { ParamDecl } from '../core/param-types.js';
import { isDeclared, type Declaration } from './endpoint.js';
import { NON_API_ROUTE, type RouteList } from './router.js';
import type { Handler } from './types.js';

type Json = Record<string, unknown>;

/** Marks an operation whose route is not declared yet: its parameters and answer are undocumented. */
export const UNDECLARED = 'x-parley-undeclared';

const ERROR_RESPONSE = { $ref: '#/components/responses/Error' };

/** A schema as plain JSON (TypeBox keeps its own markers under symbols, which JSON leaves out). */
function plain(schema: TSchema): Json {
  return JSON.parse(JSON.stringify(schema)) as Json;
}

/** "messages/{message_id:int}/reactions" → "/messages/{message_id}/reactions". */
export function openApiPath(pattern: string): string {
  const path = pattern.startsWith(NON_API_ROUTE) ? pattern.slice(NON_API_ROUTE.length + 1) : pattern;
  return '/' + path.replace(/\{(\w+)(?::int|:path)?\}/g, '{$1}');
}

function pathParamsOf(pattern: string): { name: string; int: boolean }[] {
  return [...pattern.matchAll(/\{(\w+)(:int|:path)?\}/g)].map((m) => ({ name: m[1], int: m[2] === ':int' }));
}

function paramSchema(decl: ParamDecl, deprecated = false): Json {
  const schema = plain(decl.schema);
  if (decl.description) schema.description = decl.description;
  if (deprecated) schema.deprecated = true;
  return schema;
}

/** GET parameters go in the query string; JSON-encoded ones are described as JSON content. */
function queryParameter(name: string, decl: ParamDecl, deprecated: boolean): Json {
  const p: Json = { name, in: 'query', required: decl.required && !deprecated };
  if (decl.description) p.description = decl.description;
  if (deprecated) p.deprecated = true;
  if (decl.json) p.content = { 'application/json': { schema: plain(decl.schema) } };
  else p.schema = plain(decl.schema);
  return p;
}

/** Other methods take a form body; lists and objects are JSON text in their field. */
function formBody(params: Record<string, ParamDecl>): Json | undefined {
  const names = Object.keys(params);
  if (!names.length) return undefined;
  const properties: Json = {};
  const encoding: Json = {};
  const required: string[] = [];
  for (const name of names) {
    const decl = params[name];
    const all = [name, ...(decl.aliases ?? [])];
    for (const n of all) {
      properties[n] = paramSchema(decl, n !== name);
      if (decl.json) encoding[n] = { contentType: 'application/json' };
    }
    if (decl.required) required.push(name);
  }
  const schema: Json = { type: 'object', properties };
  if (required.length) schema.required = required;
  const media: Json = { schema };
  if (Object.keys(encoding).length) media.encoding = encoding;
  return { required: required.length > 0, content: { 'application/x-www-form-urlencoded': media, 'multipart/form-data': media } };
}

function successResponse(d: Declaration): Json {
  if (d.raw) return { description: 'Success', content: { [d.raw]: {} } };
  const fields = plain(d.response);
  const schema = {
    allOf: [{ $ref: '#/components/schemas/JsonSuccessBase' }, { ...fields, type: 'object' }],
  };
  return { description: 'Success', content: { 'application/json': { schema } } };
}

function security(auth: Declaration['auth']): Json[] {
  if (auth === 'none') return [];
  if (auth === 'optional') return [{}, { basicAuth: [] }];
  return [{ basicAuth: [] }];
}

function operation(pattern: string, method: string, handler: Handler): Json {
  const op: Json = { operationId: operationId(method, pattern) };
  const pathParams = pathParamsOf(pattern);
  if (!isDeclared(handler)) {
    op.summary = `${method} ${openApiPath(pattern)}`;
    op[UNDECLARED] = true;
    op.security = security(handler.auth ?? 'user');
    if (pathParams.length) op.parameters = pathParams.map((p) => ({ name: p.name, in: 'path', required: true, schema: p.int ? { type: 'integer' } : { type: 'string' } }));
    op.responses = { '200': { description: 'Success', content: { 'application/json': { schema: { $ref: '#/components/schemas/JsonSuccessBase' } } } }, '4XX': ERROR_RESPONSE };
    return op;
  }
  const d = handler.declaration;
  op.summary = d.summary;
  if (d.deprecated) op.deprecated = true;
  op.security = security(d.auth);
  const parameters: Json[] = pathParams.map((p) => {
    const decl = d.path[p.name];
    return { name: p.name, in: 'path', required: true, schema: decl ? paramSchema(decl) : p.int ? { type: 'integer' } : { type: 'string' } };
  });
  if (method === 'GET') {
    for (const [name, decl] of Object.entries(d.params)) {
      parameters.push(queryParameter(name, decl, false));
      for (const alias of decl.aliases ?? []) parameters.push(queryParameter(alias, decl, true));
    }
  } else {
    const body = formBody(d.params);
    if (body) op.requestBody = body;
  }
  if (parameters.length) op.parameters = parameters;
  op.responses = { '200': successResponse(d), '4XX': ERROR_RESPONSE };
  return op;
}

function operationId(method: string, pattern: string): string {
  const words = openApiPath(pattern)
    .replace(/[{}]/g, '')
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean);
  return [method.toLowerCase(), ...words].join('-');
}

/** The document for a route table. */
export function openApiDocument(routes: RouteList, version: string): Json {
  const paths: Json = {};
  for (const [pattern, methods] of routes) {
    const key = openApiPath(pattern);
    const item = (paths[key] ??= {}) as Json;
    // Uploaded files and static files are served beside /api/v1, not under it.
    if (pattern.startsWith(NON_API_ROUTE)) item.servers = [{ url: '/' }];
    for (const [method, handler] of Object.entries(methods) as [string, Handler][]) {
      if (item[method.toLowerCase()]) continue; // an earlier route of the table answers it
      item[method.toLowerCase()] = operation(pattern, method, handler);
    }
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Parley API', version, description: 'The chat API Parley serves, generated from its route declarations.' },
    servers: [{ url: '/api/v1' }],
    security: [{ basicAuth: [] }],
    paths,
    components: {
      securitySchemes: { basicAuth: { type: 'http', scheme: 'basic', description: 'The account’s email and API key.' } },
      schemas: {
        JsonSuccessBase: {
          type: 'object',
          required: ['result', 'msg'],
          properties: {
            result: { const: 'success' },
            msg: { type: 'string' },
            ignored_parameters_unsupported: { type: 'array', items: { type: 'string' }, description: 'Parameters sent that this endpoint does not read.' },
          },
        },
        JsonError: {
          type: 'object',
          required: ['result', 'msg', 'code'],
          properties: { result: { const: 'error' }, msg: { type: 'string' }, code: { type: 'string' } },
          additionalProperties: true,
        },
      },
      responses: {
        Error: { description: 'The request was refused.', content: { 'application/json': { schema: { $ref: '#/components/schemas/JsonError' } } } },
      },
    },
  };
}
