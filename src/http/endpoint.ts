// One declaration per route: auth, parameters and success response; from it come the view's types, its validation and its OpenAPI entry.
import type { Static, TSchema } from '@sinclair/typebox';
import { missing } from '../core/params.js';
import type { ParamDecl, ParamValues, PathValues } from '../core/param-types.js';
import { RawResponse } from '../core/results.js';
import type { ApiRequest, AuthedRequest, Handler, LATER, ViewResult } from './types.js';

export type AuthKind = 'user' | 'optional' | 'none';
type Params = Record<string, ParamDecl>;

export interface Declaration {
  readonly summary: string;
  readonly auth: AuthKind;
  /** Parameters of the path pattern ({name:int} segments), by name. */
  readonly path: Params;
  /** Form, query-string or multipart parameters, in the order they are checked. */
  readonly params: Params;
  /** Fields of the success envelope besides result, msg and ignored_parameters_unsupported. */
  readonly response: TSchema;
  /** Set when the answer is not the JSON envelope (a file, a document): its content type. */
  readonly raw?: string;
  readonly deprecated?: boolean;
}

interface EndpointInput<A extends AuthKind, P extends Params, Q extends Params, R extends TSchema> {
  summary: string;
  auth?: A;
  path?: P;
  params?: Q;
  response: R;
  raw?: string;
  deprecated?: boolean;
  /** A permission check the original makes before reading any form parameter (after the path's). */
  check?: (req: A extends 'user' ? AuthedRequest : ApiRequest) => void;
  /** A held long-poll returns LATER (not a promise) and answers through req.replyLater(). */
  run: (req: A extends 'user' ? AuthedRequest : ApiRequest, args: PathValues<P> & ParamValues<Q>) => Promise<Static<R> | RawResponse> | typeof LATER;
}

/** A handler that carries its declaration (the route table and the OpenAPI document read it). */
export type DeclaredHandler = Handler & { declaration: Declaration };

const NONE: Params = Object.freeze({}) as Params;

/** Declares a route's handler; the router calls it as any other. */
export function endpoint<const A extends AuthKind = 'user', const P extends Params = Record<never, never>, const Q extends Params = Record<never, never>, R extends TSchema = TSchema>(
  input: EndpointInput<A, P, Q, R>,
): DeclaredHandler {
  const path = input.path ?? NONE;
  const params = input.params ?? NONE;
  const decode = paramDecoder(path, params, input.check as ((req: ApiRequest) => void) | undefined);
  const run = input.run as (req: ApiRequest, args: Record<string, unknown>) => Promise<ViewResult> | typeof LATER;
  const handler = ((req: ApiRequest) => {
    let args: Record<string, unknown>;
    try {
      args = decode(req) as Record<string, unknown>;
    } catch (err) {
      return Promise.reject(err);
    }
    return run(req, args);
  }) as DeclaredHandler;
  handler.auth = input.auth ?? 'user';
  handler.declaration = { summary: input.summary, auth: handler.auth, path, params, response: input.response, raw: input.raw, deprecated: input.deprecated };
  return handler;
}

/**
 * Decodes declared path and form parameters from a request, in order, with the original's errors.
 * Worked out once per route, not per request: this loop runs on every send. A view also uses it for
 * parameters another route declares (GET /events registering a queue with POST /register's).
 */
export function paramDecoder<P extends Params, Q extends Params>(path: P, params: Q, check?: (req: ApiRequest) => void): (req: ApiRequest) => PathValues<P> & ParamValues<Q> {
  const pathNames = Object.keys(path);
  const entries = Object.keys(params).map((name) => ({ name, decl: params[name], lookup: params[name].aliases ? { aliases: [...params[name].aliases!] } : undefined }));
  return (req) => {
    const args: Record<string, unknown> = {};
    for (const name of pathNames) args[name] = path[name].decode(req.pathParams[name], name);
    check?.(req);
    for (const { name, decl, lookup } of entries) {
      const text = req.params.str(name, lookup);
      if (text !== undefined) args[name] = decl.decode(text, name);
      else if (decl.required) throw missing(name);
      else args[name] = decl.default;
    }
    return args as PathValues<P> & ParamValues<Q>;
  };
}

export function isDeclared(h: Handler): h is DeclaredHandler {
  return (h as Partial<DeclaredHandler>).declaration !== undefined;
}

export { RawResponse };
