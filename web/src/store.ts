// The client's signals: session, register state, messages, connection, typing, the open narrow and selection.
import { computed, signal } from '@preact/signals';
import type { ClientState } from './state/model.js';
import { emptyStore, type MessageStore } from './state/messages.js';
import { narrowFromHash, narrowKey, type Narrow } from './state/narrow.js';

export interface Session {
  user_id: number;
  email: string;
  full_name: string;
}

/** undefined while the page asks whether the cookie signs anyone in. */
export const session = signal<Session | null | undefined>(undefined);
export const state = signal<ClientState | null>(null);
export const messages = signal<MessageStore>(emptyStore());
export const connection = signal<'connecting' | 'live' | 'reconnecting'>('connecting');

/** Server limits and links from /register that are not part of the reconciled state. */
export const serverInfo = signal<{ emojiDataUrl: string; typingStartWaitMs: number; typingStopWaitMs: number; typingExpiryMs: number; maxUploadMib: number }>({
  emojiDataUrl: '',
  typingStartWaitMs: 10_000,
  typingStopWaitMs: 5_000,
  typingExpiryMs: 15_000,
  maxUploadMib: 25,
});

/** Who is typing where: "stream:<id>:<topic>" or "dm:<other ids>", each with an expiry time. */
export const typing = signal<Record<string, Record<number, number>>>({});

/** The page: a message feed (by narrow) or a settings page. */
export type Route = { page: 'feed'; narrow: Narrow } | { page: 'settings'; tab: string } | { page: 'recent' };

export function routeFromHash(hash: string): Route {
  if (hash.startsWith('#settings')) return { page: 'settings', tab: hash.split('/')[1] ?? 'profile' };
  if (hash === '#recent') return { page: 'recent' };
  return { page: 'feed', narrow: narrowFromHash(hash) };
}

export const route = signal<Route>(routeFromHash(typeof location === 'undefined' ? '' : location.hash));
export const currentNarrow = computed<Narrow>(() => (route.value.page === 'feed' ? route.value.narrow : { kind: 'inbox' }));
export const currentFeedKey = computed(() => narrowKey(currentNarrow.value));

/** The message chosen with j/k (or a click), which r replies to. */
export const selectedId = signal<number | null>(null);

/** A message to quote into the compose box, or a reply target chosen elsewhere. */
export const composeRequest = signal<{ kind: 'focus' | 'reply' | 'quote'; messageId?: number; nonce: number } | null>(null);

export function requestCompose(kind: 'focus' | 'reply' | 'quote', messageId?: number): void {
  composeRequest.value = { kind, messageId, nonce: Date.now() + Math.random() };
}
