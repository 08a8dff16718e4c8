// Shapes one notice for one queue: message variants (HTML or Markdown, avatar, empty topic),
// per-user flags, the sender's local id echo, and the legacy per-message deletion form.
import { finalizeMessage, type MessageDict } from '../presenters/message.js';
import { fillNotificationDefaults } from '../presenters/subscription.js';
import type { ClientQueue, QueuedEvent } from './queue.js';
import type { EventBody, Notice } from './types.js';

/**
 * Reused for every queue that gets the same notice, so each message variant is built once. Keyed
 * by a number made of the variant's three switches (no key text built per queue of a fan-out).
 */
export type VariantCache = Map<number, Record<string, unknown>>;

/**
 * The JSON text of each shared message variant, made by the first long-poll answer that carries
 * it and reused by the thousands of others. Variants are never modified after they are built.
 */
const variantJson = new WeakMap<object, string>();

/** The JSON text of a message variant, made once (see variantJson). */
function messageJson(message: object): string {
  let text = variantJson.get(message);
  if (text === undefined) variantJson.set(message, (text = JSON.stringify(message)));
  return text;
}

/**
 * A message event in the shape eventsForQueue and ClientQueue.push give it (type, message, flags,
 * perhaps local_message_id, then id), written without looking at each key: a busy channel sends
 * every event to every subscriber, and the generic loop below was a tenth of a send's cost.
 */
function messageEventJson(ev: QueuedEvent, keys: string[]): string | null {
  const local = keys.length === 5 && keys[3] === 'local_message_id';
  if (!(keys.length === 4 || local) || keys[0] !== 'type' || keys[1] !== 'message' || keys[2] !== 'flags' || keys[keys.length - 1] !== 'id') return null;
  const flags = ev.flags;
  if (!Array.isArray(flags) || typeof ev.id !== 'number') return null;
  const flagsText = flags.length === 0 ? '[]' : JSON.stringify(flags);
  const localText = local ? JSON.stringify(ev.local_message_id) : undefined;
  return `{"type":"message","message":${messageJson(ev.message as object)},"flags":${flagsText}${localText === undefined ? '' : `,"local_message_id":${localText}`},"id":${JSON.stringify(ev.id)}}`;
}

/** A queued event as JSON, byte for byte what JSON.stringify gives, reusing a message variant's text. */
export function eventJson(ev: QueuedEvent): string {
  const message = ev.message;
  if (ev.type !== 'message' || typeof message !== 'object' || message === null) return JSON.stringify(ev);
  const keys = Object.keys(ev);
  const fast = messageEventJson(ev, keys);
  if (fast !== null) return fast;
  let out = '{';
  for (const k of keys) {
    let text: string | undefined;
    if (k === 'message') {
      text = messageJson(message);
    } else {
      text = JSON.stringify(ev[k]) as string | undefined;
    }
    // JSON.stringify leaves out keys whose value it cannot represent (undefined, functions).
    if (text === undefined) continue;
    out += (out.length > 1 ? ',' : '') + JSON.stringify(k) + ':' + text;
  }
  return out + '}';
}

/** A list of queued events as a JSON array. */
export function eventsJson(events: QueuedEvent[]): string {
  let out = '[';
  for (let i = 0; i < events.length; i++) out += (i ? ',' : '') + eventJson(events[i]);
  return out + ']';
}

const TOPIC_FIELDS = ['subject', 'orig_subject', 'topic', 'prev_topic', 'topic_name'];
/** The flags of most recipients of a busy channel's message; shared, so never changed. */
const NO_FLAGS: readonly string[] = Object.freeze([]);

/**
 * A message notice's event for this queue, as a new object the queue may keep as it is (the
 * registry then skips the copy it makes of shared events); null for any other notice, or when the
 * queue gets the notice's capability fallback instead.
 */
export function ownMessageEvent(notice: Notice, q: ClientQueue, cache: VariantCache): EventBody | null {
  const ev = notice.event;
  if (ev.type !== 'message') return null;
  const caps = q.opts.capabilities;
  if (notice.withoutCapability && caps[notice.withoutCapability.capability] !== true) return null;
  const allowEmptyTopic = caps.empty_topic_name === true;
  const key = (q.opts.applyMarkdown ? 4 : 0) | (q.opts.clientGravatar ? 2 : 0) | (allowEmptyTopic ? 1 : 0);
  let message = cache.get(key);
  if (!message) {
    message = finalizeMessage(ev.message as MessageDict, {
      applyMarkdown: q.opts.applyMarkdown,
      clientGravatar: q.opts.clientGravatar,
      allowEmptyTopic,
      emptyTopicDisplayName: (ev.__empty_topic_name as string | undefined) ?? 'general chat',
      showEditHistory: true,
    });
    cache.set(key, message);
  }
  const flags = notice.flags?.[q.opts.userId] ?? NO_FLAGS;
  // Made with every key it will have, id last (ClientQueue.pushOwn fills it in): a key added later
  // gives the object a second, out-of-object store, and a queue keeps its events until acknowledged.
  if (notice.senderQueueId === q.id && notice.localId !== undefined) return { type: 'message', message, flags, local_message_id: notice.localId, id: -1 };
  return { type: 'message', message, flags, id: -1 };
}

export function eventsForQueue(notice: Notice, q: ClientQueue, cache: VariantCache): EventBody[] {
  const ev = notice.event;
  const caps = q.opts.capabilities;
  const allowEmptyTopic = caps.empty_topic_name === true;
  const emptyName = (ev.__empty_topic_name as string | undefined) ?? 'general chat';
  if (notice.withoutCapability && caps[notice.withoutCapability.capability] !== true) {
    return notice.withoutCapability.events.map((e) => withNotificationDefaults(e, stripInternal(e, allowEmptyTopic, emptyName), caps));
  }
  switch (ev.type) {
    case 'message':
      return [ownMessageEvent(notice, q, cache)!];
    case 'delete_message': {
      const base = stripInternal(ev, allowEmptyTopic, emptyName);
      if (caps.bulk_message_deletion || !Array.isArray(base.message_ids)) return [base];
      const { message_ids, ...rest } = base;
      return (message_ids as number[]).map((id) => ({ ...rest, type: 'delete_message', message_id: id }));
    }
    case 'subscription':
      return [withNotificationDefaults(ev, stripInternal(ev, allowEmptyTopic, emptyName), caps)];
    case 'muted_topics': {
      // Nested [channel, topic, time] entries: the empty topic shows as its display name for older clients.
      const base = stripInternal(ev, allowEmptyTopic, emptyName);
      if (allowEmptyTopic || !Array.isArray(base.muted_topics)) return [base];
      return [{ ...base, muted_topics: (base.muted_topics as unknown[][]).map(([name, topic, ts]) => [name, topic === '' ? emptyName : topic, ts]) }];
    }
    case 'update_message_flags': {
      const base = stripInternal(ev, allowEmptyTopic, emptyName);
      const details = base.message_details as Record<string, { topic?: string }> | undefined;
      if (allowEmptyTopic || !details || !Object.values(details).some((d) => d.topic === '')) return [base];
      const shown = Object.fromEntries(Object.entries(details).map(([id, d]) => [id, d.topic === '' ? { ...d, topic: emptyName } : d]));
      return [{ ...base, message_details: shown }];
    }
    default:
      return [stripInternal(ev, allowEmptyTopic, emptyName)];
  }
}

/** Subscription objects for clients without notification_settings_null: the user's defaults in place of nulls. */
function withNotificationDefaults(ev: EventBody, base: EventBody, caps: Record<string, boolean>): EventBody {
  const defaults = ev.__notification_defaults as Record<string, boolean> | undefined;
  if (ev.type !== 'subscription' || !defaults || caps.notification_settings_null === true || !Array.isArray(base.subscriptions)) return base;
  return { ...base, subscriptions: fillNotificationDefaults(base.subscriptions as Record<string, unknown>[], defaults) };
}

/** Removes internal keys and applies the empty-topic display rule to topic fields. */
function stripInternal(ev: EventBody, allowEmptyTopic: boolean, emptyName: string): EventBody {
  let out: EventBody | null = null;
  for (const k of Object.keys(ev)) {
    if (k.startsWith('__') || (!allowEmptyTopic && TOPIC_FIELDS.includes(k) && ev[k] === '')) {
      out ??= { ...ev };
      if (k.startsWith('__')) delete out[k];
      else out[k] = emptyName;
    }
  }
  return out ?? ev;
}
