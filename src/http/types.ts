// What a view receives and returns.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Http2ServerRequest, Http2ServerResponse } from 'node:http2';
import type { LeanRequest, LeanResponse } from './h1-lean.js';
import type { AppContext } from '../context.js';
import type { Config } from '../config.js';
import type { RateClass } from '../lib/request-rate-limits.js';
import type { Realm, User } from '../store/schema.js';
import type { Params } from '../core/params.js';
import { RawResponse, type UploadedFile } from '../core/results.js';

export { RawResponse };

/**
 * A request as one of the three servers gives it: the lean HTTP/1.1 one (most requests), Node's
 * HTTP/1.1 server (connections the lean one handed over), HTTP/2 through Node's compatibility API.
 */
export type HttpRequest = LeanRequest | IncomingMessage | Http2ServerRequest;
export type HttpResponse = LeanResponse | ServerResponse | Http2ServerResponse;

export interface ApiRequest {
  app: AppContext;
  realm: Realm;
  /** The authenticated user; null only for routes declared with auth "none" or "optional". */
  user: User | null;
  params: Params;
  pathParams: Record<string, string>;
  files: UploadedFile[];
  /** Name of the sending client, from the User-Agent (as the original records it). */
  clientName: string;
  http: HttpRequest;
  /** The text of an application/json body, when the request had one (incoming webhooks). */
  jsonBody?: string;
  /**
   * For a view that answers after it returns (a held long-poll): it returns LATER and answers
   * through this. Parameters it reads afterwards do not count as used.
   */
  replyLater(): Reply;
}

/** A view's answer given after the view returned (see ApiRequest.replyLater). */
export interface Reply {
  /** The parameters the view had not read when it took this reply (reported with a success). */
  readonly ignored: readonly string[];
  /** The client has gone away: nothing sent will reach it. */
  readonly aborted: boolean;
  /** Whether holdNextRequest holds anything back: an HTTP/1.1 connection carries one request at a time; an HTTP/2 one many. */
  readonly pacedReads: boolean;
  /**
   * Calls watcher.closed() once, when the connection closes or the answer has been sent (whichever
   * comes first). A watcher object rather than a callback: a held long-poll keeps no closure.
   */
  onClose(watcher: CloseWatcher): void;
  /**
   * Once the answer is written, the connection's next request waits until the event queues
   * release it (a long-poll answer: see events/read-pacer.ts). Called before send.
   */
  holdNextRequest(): void;
  /** Sends the result as a view's return value would be sent. */
  send(result: ViewResult): void;
  /** Sends the error's envelope, as if the view had thrown it. */
  fail(err: unknown): void;
}

/** Told when a reply's connection closes (Reply.onClose). */
export interface CloseWatcher {
  closed(): void;
}

/** What a view that answers through replyLater() returns. */
export const LATER: unique symbol = Symbol('answered later');

export interface AuthedRequest extends ApiRequest {
  user: User;
}

/** A view returns the fields to merge into the success envelope, or a raw response. */
export type ViewResult = Record<string, unknown> | RawResponse;


export type Handler = ((req: ApiRequest) => Promise<ViewResult> | typeof LATER) & {
  auth?: 'user' | 'optional' | 'none';
  /** Which rate limit its requests count against (default "api"; see lib/request-rate-limits.ts). */
  rateLimit?: RateClass;
  /** A route that takes uploaded files: the largest file it accepts (see handlers.ts acceptsFiles). */
  maxFileBytes?: (config: Config) => number;
};
