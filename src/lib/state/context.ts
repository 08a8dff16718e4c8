// What a register-state fetcher gets: the consistent read, the user, and the client's options.
import type { Tx } from '../../store/store.js';
import type { Realm, User } from '../../store/schema.js';
import type { AppContext } from '../../context.js';

export interface StateOptions {
  applyMarkdown: boolean;
  clientGravatar: boolean;
  includeSubscribers: boolean | 'partial';
  slimPresence: boolean;
  presenceHistoryLimitDays: number;
  capabilities: Record<string, boolean>;
  allPublicStreams: boolean;
}

export interface StateContext {
  app: AppContext;
  tx: Tx;
  realm: Realm;
  /** Null for a spectator (unauthenticated register on a web-public organization). */
  user: User | null;
  opts: StateOptions;
}

/** Fills some top-level register fields; `types` are the event types whose state it fetches. */
export interface StateFetcher {
  types: readonly string[];
  /** Runs for every register, whatever the client asked: its fields are in every answer. */
  always?: true;
  fetch(ctx: StateContext): Promise<Record<string, unknown>>;
}
