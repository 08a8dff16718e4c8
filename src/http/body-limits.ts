// How large each route's request body may be: uploads up to their configured file size, everything else small.
import path from 'node:path';
import type { Config } from '../config.js';
import type { BodyLimits } from './body.js';
import type { Handler } from './types.js';

/** Bodies of routes that take no files: forms and JSON parameters, far below this. */
export const SMALL_BODY_BYTES = 2 * 1024 * 1024;
/** Files one upload request may carry (the views take one; a few more get their own clear refusal). */
export const MAX_FILES_PER_REQUEST = 4;
/** Room for the form fields and part headers around an upload's files. */
const FORM_ROOM_BYTES = 1024 * 1024;

/** The limits of each route, made once per route. */
export class RouteBodyLimits {
  private readonly small: BodyLimits;
  private readonly byHandler = new WeakMap<Handler, BodyLimits>();
  private readonly tempDir: string;

  constructor(private readonly config: Config) {
    this.tempDir = path.join(config.dataDir, 'incoming');
    this.small = { maxBodyBytes: SMALL_BODY_BYTES, maxFiles: 0, maxFileBytes: 0, tempDir: this.tempDir, timeoutMs: config.requestTimeoutMs };
  }

  of(handler: Handler): BodyLimits {
    if (!handler.maxFileBytes) return this.small;
    let limits = this.byHandler.get(handler);
    if (!limits) {
      const maxFileBytes = handler.maxFileBytes(this.config);
      limits = {
        maxBodyBytes: MAX_FILES_PER_REQUEST * maxFileBytes + FORM_ROOM_BYTES,
        maxFiles: MAX_FILES_PER_REQUEST,
        maxFileBytes,
        tempDir: this.tempDir,
        timeoutMs: this.config.requestTimeoutMs,
      };
      this.byHandler.set(handler, limits);
    }
    return limits;
  }
}
