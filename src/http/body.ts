// Reads a request's parameters from its query string and its URL-encoded or multipart body.
import type { HttpRequest } from './types.js';
import busboy from 'busboy';
import { LeanRequest } from './h1-lean.js';
import { ApiError, badRequest } from '../core/api-error.js';
import type { RawParams } from '../core/params.js';
import type { UploadedFile } from '../core/results.js';

export type { UploadedFile };

export interface ParsedBody {
  params: RawParams;
  files: UploadedFile[];
}

const MAX_FORM_BYTES = 8 * 1024 * 1024;
const MAX_UPLOAD_BYTES = 64 * 1024 * 1024;

function readAll(req: HttpRequest, limit: number): Promise<Buffer> {
  // The lean server read the body already (it takes bodies far below the limit).
  if (req instanceof LeanRequest) return Promise.resolve(req.body);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > limit) {
        reject(new ApiError('Request body too large', 'BAD_REQUEST', 413));
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function readMultipart(req: HttpRequest, params: RawParams): Promise<UploadedFile[]> {
  return new Promise((resolve, reject) => {
    let bb: busboy.Busboy;
    try {
      bb = busboy({ headers: req.headers, limits: { fileSize: MAX_UPLOAD_BYTES, fieldSize: MAX_FORM_BYTES } });
    } catch {
      reject(badRequest('Malformed multipart body'));
      return;
    }
    const files: UploadedFile[] = [];
    bb.on('field', (name, value) => params.set(name, value));
    bb.on('file', (field, stream, info) => {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('limit', () => reject(new ApiError('Uploaded file is larger than the allowed limit', 'BAD_REQUEST', 413)));
      stream.on('end', () => files.push({ field, filename: info.filename ?? 'file', mimeType: info.mimeType, data: Buffer.concat(chunks) }));
    });
    bb.on('error', () => reject(badRequest('Malformed multipart body')));
    bb.on('close', () => resolve(files));
    if (req instanceof LeanRequest) bb.end(req.body);
    else req.pipe(bb);
  });
}

/**
 * Query-string values first; body values override them, as the original reads POST before GET.
 * Synchronous for GET and HEAD (no body to wait for), which is every long-poll.
 */
export function parseRequestParams(req: HttpRequest, query: string): ParsedBody | Promise<ParsedBody> {
  const params: RawParams = new Map();
  if (query) addQuery(query, params);
  if (req.method === 'GET' || req.method === 'HEAD') {
    req.resume();
    return { params, files: NO_FILES };
  }
  return parseBody(req, params);
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

async function parseBody(req: HttpRequest, params: RawParams): Promise<ParsedBody> {
  const type = (req.headers['content-type'] ?? '').toLowerCase();
  if (type.startsWith('multipart/form-data')) {
    const files = await readMultipart(req, params);
    return { params, files };
  }
  const body = await readAll(req, MAX_FORM_BYTES);
  if (body.length > 0 && (type === '' || type.startsWith('application/x-www-form-urlencoded') || type.startsWith('text/plain'))) {
    for (const [k, v] of new URLSearchParams(body.toString('utf8'))) params.set(k, v);
  }
  return { params, files: [] };
}
