// Reads a request's parameters from its query string and its URL-encoded or multipart body, within the route's limits; uploaded files stream to disk.
import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { IncomingMessage } from 'node:http';
import { Busboy, type BusboyFileStream, type BusboyInstance } from '@fastify/busboy';
import type { HttpRequest } from './types.js';
import { LeanRequest } from './h1-lean.js';
import { ApiError, badRequest } from '../core/api-error.js';
import type { RawParams } from '../core/params.js';
import type { UploadedFile } from '../core/results.js';

export type { UploadedFile };

export interface ParsedBody {
  params: RawParams;
  files: UploadedFile[];
  /** The text of an application/json body (incoming webhooks post their payload so). */
  jsonBody?: string;
}

/** What one route's request body may hold. */
export interface BodyLimits {
  /** The whole body, as sent; more is refused with 413 without being read. */
  maxBodyBytes: number;
  /** Files one request may carry (0: file parts are skipped unread). */
  maxFiles: number;
  /** One file's bytes; a larger file is refused while it arrives. */
  maxFileBytes: number;
  /** Where files are written while their request is served. */
  tempDir: string;
  /**
   * How long the body may take to arrive. Node's HTTP/1.1 server ends a slower request itself
   * (requestTimeout); an HTTP/2 stream has no such limit, so it is kept here.
   */
  timeoutMs: number;
}

const tooLarge = () => new ApiError('Request body too large', 'BAD_REQUEST', 413);
const malformed = () => badRequest('Malformed multipart body');
/** The client went away or was timed out mid-body: nobody reads this answer, but it must not be a 500. */
const incomplete = () => badRequest('The request body did not arrive whole');
export const fileTooLarge = (maxBytes: number) => badRequest(`Uploaded file is larger than the allowed limit of ${Math.floor(maxBytes / (1024 * 1024))} MiB`);

/** Content-Length when sent (Node's parser checked its form), else -1. */
function declaredLength(req: HttpRequest): number {
  const v = req.headers['content-length'];
  return typeof v === 'string' && v !== '' ? Number(v) : -1;
}

/**
 * Feeds the request body to `sink` chunk by chunk, counting it against the limit, with the sink's
 * backpressure. `stop` ends the reading; nothing is kept here.
 */
function pump(req: Exclude<HttpRequest, LeanRequest>, limits: BodyLimits, onChunk: (c: Buffer) => boolean, onEnd: () => void, onFail: (e: ApiError) => void): () => void {
  const limit = limits.maxBodyBytes;
  let size = 0;
  const timer = req instanceof IncomingMessage ? null : setTimeout(() => {
    stop();
    onFail(new ApiError('Request Timeout', 'BAD_REQUEST', 408));
  }, limits.timeoutMs);
  const ended = () => {
    if (timer) clearTimeout(timer);
    onEnd();
  };
  const stop = () => {
    if (timer) clearTimeout(timer);
    req.off('data', data);
    req.off('end', ended);
    req.pause();
  };
  function data(c: Buffer) {
    size += c.length;
    if (size > limit) {
      stop();
      onFail(tooLarge());
      return;
    }
    if (!onChunk(c)) req.pause();
  }
  req.on('data', data);
  req.on('end', ended);
  req.on('error', () => {
    stop();
    onFail(incomplete());
  });
  req.on('aborted', () => {
    stop();
    onFail(incomplete());
  });
  return stop;
}

/** What readAll passes on to pump besides the length and the time (no files there). */
const NO_FILE_LIMITS: BodyLimits = { maxBodyBytes: 0, maxFiles: 0, maxFileBytes: 0, tempDir: '', timeoutMs: 0 };

function readAll(req: HttpRequest, limit: number, timeoutMs: number): Promise<Buffer> {
  if (req instanceof LeanRequest) return req.body.length > limit ? Promise.reject(tooLarge()) : Promise.resolve(req.body);
  if (declaredLength(req) > limit) return Promise.reject(tooLarge());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let settled = false;
    pump(
      req,
      { ...NO_FILE_LIMITS, maxBodyBytes: limit, timeoutMs },
      (c) => chunks.push(c) > 0,
      () => {
        settled = true;
        resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks));
      },
      (e) => {
        if (settled) return;
        settled = true;
        reject(e);
      },
    );
  });
}

let madeDir = '';

async function ensureDir(dir: string): Promise<void> {
  if (madeDir === dir) return;
  await fs.promises.mkdir(dir, { recursive: true });
  madeDir = dir;
}

/** Removes the files a request's body left (after its answer). */
export function discardFiles(files: readonly UploadedFile[]): void {
  for (const f of files) fs.rm(f.path, { force: true }, () => undefined);
}

function readMultipart(req: HttpRequest, params: RawParams, limits: BodyLimits): Promise<UploadedFile[]> {
  if (!(req instanceof LeanRequest) && declaredLength(req) > limits.maxBodyBytes) return Promise.reject(tooLarge());
  return ensureDir(limits.tempDir).then(
    () =>
      new Promise((resolve, reject) => {
        let bb: BusboyInstance;
        try {
          bb = new Busboy({
            headers: req.headers as { 'content-type': string },
            limits: { fileSize: limits.maxFileBytes, files: limits.maxFiles, fieldSize: limits.maxBodyBytes, fields: 1000, parts: 1000 + limits.maxFiles },
          });
        } catch {
          reject(malformed());
          return;
        }
        const files: UploadedFile[] = [];
        const writing = new Set<Promise<void>>();
        const outs: fs.WriteStream[] = [];
        let failed = false;
        let stopReading = () => {};
        const fail = (e: ApiError) => {
          if (failed) return;
          failed = true;
          stopReading();
          bb.removeAllListeners('finish');
          bb.on('error', () => undefined);
          bb.destroy();
          for (const out of outs) out.destroy();
          // Files written so far go once their streams have closed.
          void Promise.allSettled([...writing]).then(() => discardFiles(files));
          reject(e);
        };
        bb.on('field', (name, value, nameTruncated, valueTruncated) => {
          if (nameTruncated || valueTruncated) fail(tooLarge());
          else params.set(name, value);
        });
        bb.on('file', (field: string, stream: BusboyFileStream, filename: string, _encoding: string, mimeType: string) => {
          if (failed) return stream.resume();
          const file = diskFile(field, filename, mimeType, path.join(limits.tempDir, randomUUID()));
          files.push(file);
          const out = fs.createWriteStream(file.path);
          outs.push(out);
          stream.on('data', (c: Buffer) => (file.size += c.length));
          stream.on('limit', () => fail(fileTooLarge(limits.maxFileBytes)));
          const written = new Promise<void>((done) => out.on('close', () => done()));
          writing.add(written);
          out.on('error', () => fail(badRequest('The uploaded file could not be stored')));
          stream.pipe(out);
        });
        bb.on('filesLimit', () => {
          if (limits.maxFiles > 0) fail(badRequest(`At most ${limits.maxFiles} files may be sent in one request`));
        });
        bb.on('fieldsLimit', () => fail(tooLarge()));
        bb.on('partsLimit', () => fail(tooLarge()));
        bb.on('error', () => fail(malformed()));
        bb.on('finish', () => {
          void Promise.all([...writing]).then(() => {
            if (!failed) resolve(files);
          });
        });
        if (req instanceof LeanRequest) {
          if (req.body.length > limits.maxBodyBytes) fail(tooLarge());
          else bb.end(req.body);
          return;
        }
        stopReading = pump(
          req,
          limits,
          (c) => bb.write(c),
          () => bb.end(),
          fail,
        );
        bb.on('drain', () => {
          if (!failed) req.resume();
        });
      }),
  );
}

function diskFile(field: string, filename: string | undefined, mimeType: string, filePath: string): UploadedFile {
  return {
    field,
    filename: filename || 'file',
    mimeType,
    size: 0,
    path: filePath,
    read: () => fs.promises.readFile(filePath),
  };
}

/**
 * Query-string values first; body values override them, as the original reads POST before GET.
 * Synchronous for GET and HEAD (no body to wait for), which is every long-poll. Called once the
 * caller is authenticated: nothing of an anonymous request's body is read for a route that needs a user.
 */
export function parseRequestParams(req: HttpRequest, query: string, limits: BodyLimits): ParsedBody | Promise<ParsedBody> {
  const params: RawParams = new Map();
  if (query) addQuery(query, params);
  if (req.method === 'GET' || req.method === 'HEAD') {
    req.resume();
    return { params, files: NO_FILES };
  }
  return parseBody(req, params, limits);
}

/** A query that decodes to itself: no escapes, no "+", ASCII only. */
const NEEDS_DECODING = /[%+]|[^\x00-\x7f]/;

/**
 * Adds a query string's pairs, later ones overriding earlier ones, exactly as URLSearchParams reads
 * them. A query with nothing to decode (every long-poll's) is split here without its machinery.
 */
export function addQuery(query: string, params: RawParams): void {
  if (NEEDS_DECODING.test(query)) {
    for (const [k, v] of new URLSearchParams(query)) params.set(k, v);
    return;
  }
  let pos = 0;
  while (pos < query.length) {
    let amp = query.indexOf('&', pos);
    if (amp < 0) amp = query.length;
    if (amp > pos) {
      const eq = query.indexOf('=', pos);
      if (eq < 0 || eq > amp) params.set(query.slice(pos, amp), '');
      else params.set(query.slice(pos, eq), query.slice(eq + 1, amp));
    }
    pos = amp + 1;
  }
}

/** Shared by every request without files; frozen so that no view can add to it. */
const NO_FILES = Object.freeze([]) as unknown as UploadedFile[];

async function parseBody(req: HttpRequest, params: RawParams, limits: BodyLimits): Promise<ParsedBody> {
  const type = (req.headers['content-type'] ?? '').toLowerCase();
  if (type.startsWith('multipart/form-data')) {
    const files = await readMultipart(req, params, limits);
    return { params, files: files.length ? files : NO_FILES };
  }
  const body = await readAll(req, limits.maxBodyBytes, limits.timeoutMs);
  if (body.length > 0 && type.startsWith('application/json')) return { params, files: NO_FILES, jsonBody: body.toString('utf8') };
  if (body.length > 0 && (type === '' || type.startsWith('application/x-www-form-urlencoded') || type.startsWith('text/plain'))) {
    for (const [k, v] of new URLSearchParams(body.toString('utf8'))) params.set(k, v);
  }
  return { params, files: NO_FILES };
}
