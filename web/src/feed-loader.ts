// Loads pages of a feed (GET /messages) into the message store, and marks messages read.
import { api } from './api.js';
import { addPage } from './state/messages.js';
import { apiNarrow, narrowKey, type Narrow } from './state/narrow.js';
import { messages } from './store.js';

const PAGE = 60;
const loading = new Set<string>();

/** The newest page of a narrow (or the page around its first unread message). */
export async function loadFeed(narrow: Narrow): Promise<void> {
  const key = narrowKey(narrow);
  if (loading.has(key)) return;
  loading.add(key);
  try {
    const page = await api('GET', 'messages', { anchor: 'newest', num_before: PAGE, num_after: 0, narrow: apiNarrow(narrow), apply_markdown: true });
    messages.value = addPage(messages.value, key, narrow, page, 'initial');
  } finally {
    loading.delete(key);
  }
}

/** The page before the oldest (or after the newest) loaded message. */
export async function loadMore(narrow: Narrow, direction: 'older' | 'newer'): Promise<void> {
  const key = narrowKey(narrow);
  const feed = messages.value.feeds[key];
  if (!feed || loading.has(key)) return;
  if (direction === 'older' ? feed.foundOldest : feed.foundNewest) return;
  const anchor = direction === 'older' ? feed.ids[0] : feed.ids[feed.ids.length - 1];
  if (anchor === undefined) return;
  loading.add(key);
  try {
    const page = await api('GET', 'messages', {
      anchor,
      include_anchor: false,
      num_before: direction === 'older' ? PAGE : 0,
      num_after: direction === 'newer' ? PAGE : 0,
      narrow: apiNarrow(narrow),
      apply_markdown: true,
    });
    messages.value = addPage(messages.value, key, narrow, page, direction);
  } finally {
    loading.delete(key);
  }
}

let pendingRead = new Set<number>();
let flushTimer: ReturnType<typeof setTimeout> | null = null;

/** Marks a message read once it has been on screen; sent in batches. The server's event updates the counts. */
export function markSeen(id: number): void {
  if (pendingRead.has(id)) return;
  pendingRead.add(id);
  flushTimer ??= setTimeout(() => {
    const ids = [...pendingRead];
    pendingRead = new Set();
    flushTimer = null;
    void api('POST', 'messages/flags', { messages: ids, op: 'add', flag: 'read' }).catch(() => {
      // Not marked this time: they stay unread and are marked when seen again.
    });
  }, 400);
}
