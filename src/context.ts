// The services a request or worker may use, built once at start-up and passed down (no globals).
import type { Config } from './config.js';
import type { Store } from './store/store.js';
import type { QueueRegistry } from './events/registry.js';
import type { EventBus } from './events/bus.js';
import type { Caches } from './lib/caches.js';
import type { RateLimiter } from './lib/rate-limit.js';
import type { RequestRateLimits } from './lib/request-rate-limits.js';
import type { Outbox } from './lib/mail/outbox.js';
import type { SearchIndexer } from './lib/messages/search-indexer.js';
import type { Logger } from './ops/logger.js';
import type { OpsCounters } from './ops/counters.js';
import type { ImageProxy } from './lib/image-proxy/sign.js';
import type { FileStorage } from './lib/storage/index.js';

export interface Clock {
  /** Current UNIX time in seconds. */
  now(): number;
}

export interface AppContext {
  config: Config;
  store: Store;
  /** Uploaded bytes (uploads, avatars, custom emoji, exports): the one store PARLEY_FILE_STORE picks. */
  files: FileStorage;
  queues: QueueRegistry;
  bus: EventBus;
  clock: Clock;
  caches: Caches;
  /** Failed password attempts per organization and username. */
  passwordLimiter: RateLimiter;
  /** Request rate limits per user, per IP and for logins (see docs/decisions.md). */
  rateLimits: RequestRateLimits;
  /** Outgoing mail (SMTP, or files in the data directory's outbox). */
  mail: Outbox;
  /** Search indexing of new messages (SQLite). */
  search: SearchIndexer;
  /** The process's logger (pino). */
  log: Logger;
  /** Running totals /metrics reports (plain numbers, updated where the work is done). */
  counters: OpsCounters;
  /** The image proxy previews go through (lib/image-proxy); null or absent when it is off. */
  imageProxy?: ImageProxy | null;
}

export const systemClock: Clock = { now: () => Math.floor(Date.now() / 1000) };
