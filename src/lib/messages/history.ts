// Message edit history as clients see it: the organization's visibility policy, the edit_history
// entries of Message objects, and the snapshots of GET /messages/{id}/history.
import type { Message, Realm } from '../../store/schema.js';
import type { Tx } from '../../store/store.js';
import { realmSettings } from '../realm-settings.js';
import { displayTopic } from '../../presenters/message.js';
import { htmlDiff } from './html-diff.js';

export type EditHistoryPolicy = 'all' | 'moves' | 'none';

/** `message_edit_history_visibility_policy`, with the legacy `allow_edit_history: false` meaning none. */
export function editHistoryPolicy(realm: Pick<Realm, 'settings'>): EditHistoryPolicy {
  const s = realmSettings(realm);
  if (s.allow_edit_history === false) return 'none';
  const p = s.message_edit_history_visibility_policy;
  return p === 'none' || p === 'moves' ? p : 'all';
}

type Entry = Record<string, unknown>;
const CONTENT_KEYS = ['prev_content', 'prev_rendered_content'];
const isMove = (e: Entry) => 'prev_topic' in e || 'prev_stream' in e;

/** The edit_history a Message object shows: all of it, only moves (without content), or none. */
export function visibleEditHistory(entries: Entry[] | undefined, policy: EditHistoryPolicy): Entry[] | undefined {
  if (!entries || policy === 'none') return undefined;
  if (policy === 'all') return entries;
  const moves = entries.filter(isMove).map((e) => Object.fromEntries(Object.entries(e).filter(([k]) => !CONTENT_KEYS.includes(k))));
  return moves.length ? moves : undefined;
}

/**
 * The entries left once earlier content versions are deleted: moves without their content fields, content-only
 * edits gone. Null when no entry holds earlier content (nothing to delete).
 */
export function withoutContentEdits(entries: Entry[]): Entry[] | null {
  if (!entries.some((e) => 'prev_content' in e)) return null;
  return entries.filter(isMove).map((e) => Object.fromEntries(Object.entries(e).filter(([k]) => !CONTENT_KEYS.includes(k))));
}

export interface SnapshotOptions {
  allowEmptyTopic: boolean;
  emptyTopicDisplayName: string;
  policy: EditHistoryPolicy;
  /** Who deleted the earlier content versions, if anyone did. */
  historyDeletedBy?: number;
}

/**
 * Snapshots oldest first: the original message (topic, content, rendered_content, timestamp, user_id),
 * then one per edit with the values after it plus only the fields that edit changed. Stored entries
 * are newest first and hold the values before each edit, so the walk goes back from the current row.
 * Under the moves-only policy content edits are not shown: moves alone, all with the current content.
 */
export function messageSnapshots(message: Message, opts: SnapshotOptions): Entry[] {
  let entries = message.edit_history ? (JSON.parse(message.edit_history) as Entry[]) : [];
  if (opts.policy === 'moves') entries = entries.filter(isMove);
  const showContent = opts.policy === 'all';
  const topic = (t: string) => (message.stream_id === null ? t : displayTopic(t, opts));
  let content = message.content;
  let rendered = message.rendered_content;
  let currentTopic = message.topic;
  const out: Entry[] = [];
  for (const e of entries) {
    const snap: Entry = { topic: topic(currentTopic), content, rendered_content: rendered, timestamp: e.timestamp, user_id: e.user_id ?? null };
    if (typeof e.prev_topic === 'string') {
      currentTopic = e.prev_topic;
      snap.prev_topic = topic(currentTopic);
    }
    if (showContent && typeof e.prev_content === 'string') {
      const prevRendered = typeof e.prev_rendered_content === 'string' ? e.prev_rendered_content : '';
      Object.assign(snap, { prev_content: e.prev_content, prev_rendered_content: prevRendered, content_html_diff: htmlDiff(prevRendered, rendered) });
      content = e.prev_content;
      rendered = prevRendered;
    }
    if (e.prev_stream !== undefined) Object.assign(snap, { prev_stream: e.prev_stream, stream: e.stream });
    out.push(snap);
  }
  const original: Entry = { topic: topic(currentTopic), content, rendered_content: rendered, timestamp: message.date_sent, user_id: message.sender_id };
  // Once earlier versions were deleted the oldest snapshot no longer shows the first content: say who deleted them.
  if (opts.historyDeletedBy !== undefined) original.history_deleted_by = opts.historyDeletedBy;
  out.push(original);
  return out.reverse();
}

/** The user who deleted the message's earlier content versions, or undefined. */
export async function historyDeleter(tx: Tx, messageId: number): Promise<number | undefined> {
  return (await tx.selectFrom('message_history_deletions').select('deleted_by').where('message_id', '=', messageId).executeTakeFirst())?.deleted_by;
}
