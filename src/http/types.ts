// What a view receives and returns.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Http2ServerRequest, Http2ServerResponse } from 'node:http2';
import type { LeanRequest, LeanResponse } from './h1-lean.js';
import type { AppContext } from '../context.js';
import type { Realm, User } from '../store/schema.js';
import type { Params } from './params.js';
import type { UploadedFile } from './body.js';

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
  /** Fires when the client goes away before the response is sent (made on first use). */
  readonly signal: AbortSignal;
  /** The same as `signal` without an AbortController: what a held long-poll listens to. */
  readonly closed: CloseSignal;
  /**
   * Once this response is written, the connection's next request waits until the event queues
   * release it (a long-poll answer: see events/read-pacer.ts). Nothing happens where
   * `closed.pacedReads` is false.
   */
  holdNextRequest(): void;
}

/** The part of AbortSignal a long-poll needs; `abort` fires when the connection closes. */
export interface CloseSignal {
  readonly aborted: boolean;
  /** Whether holdNextRequest holds anything back: an HTTP/1.1 connection carries one request at a time; an HTTP/2 one many. */
  readonly pacedReads: boolean;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
}

export interface AuthedRequest extends ApiRequest {
  user: User;
}

/** A view returns the fields to merge into the success envelope, or a raw response. */
export type ViewResult = Record<string, unknown> | RawResponse;

export class RawResponse {
  constructor(
    readonly status: number,
    readonly body: string | Buffer,
    readonly headers: Record<string, string> = {},
  ) {}
}

export type Handler = ((req: ApiRequest) => Promise<ViewResult>) & { auth?: 'user' | 'optional' | 'none' };
