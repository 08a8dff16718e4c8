// Topic rules: the empty topic and its display name, length, mandatory topics and channel topic policies.
import { badRequest } from '../../core/api-error.js';
import { MAX_TOPIC_LENGTH } from '../../models/limits.js';
import { realmSettings, emptyTopicDisplayName } from '../realm-settings.js';
import type { Realm, Stream } from '../../store/schema.js';

export const RESOLVED_TOPIC_PREFIX = '✔ ';
/** The original's older spelling of the empty topic, accepted on input since its FL 370. */
const LEGACY_NO_TOPIC = '(no topic)';

/** Lower-cased topic: the key topics are matched by. */
export const topicKey = (topic: string): string => topic.toLowerCase();

/** Client input → stored topic: trimmed, and the empty topic's display names mean "". */
export function normalizeTopicInput(raw: string, realm: Pick<Realm, 'settings'>): string {
  const t = raw.replace(/\0/g, '').trim();
  if (t === emptyTopicDisplayName(realm) || t === LEGACY_NO_TOPIC) return '';
  return t;
}

export function checkTopicLength(topic: string): void {
  if ([...topic].length > MAX_TOPIC_LENGTH) throw badRequest(`topic is too long (limit: ${MAX_TOPIC_LENGTH} characters)`, { var_name: 'topic' });
}

/** The topic policy in force for a channel: its own, else the organization's (and mandatory_topics). */
export function effectiveTopicsPolicy(realm: Pick<Realm, 'settings'>, stream: Pick<Stream, 'topics_policy'>): string {
  if (stream.topics_policy && stream.topics_policy !== 'inherit') return stream.topics_policy;
  const s = realmSettings(realm);
  if (s.mandatory_topics === true) return 'disable_empty_topic';
  return String(s.topics_policy ?? 'allow_empty_topic');
}

/** Checks a topic a message is sent or moved to. */
export function checkTopicAllowed(topic: string, realm: Pick<Realm, 'settings'>, stream: Pick<Stream, 'topics_policy'>, forEdit = false): void {
  checkTopicLength(topic);
  const policy = effectiveTopicsPolicy(realm, stream);
  if (policy === 'disable_empty_topic' && topic === '') {
    throw badRequest(forEdit ? "Topic can't be empty" : 'Sending messages to the general chat is not allowed in this channel.');
  }
  if (policy === 'empty_topic_only' && topic !== '') throw badRequest('Only the general chat topic is allowed in this channel.');
}

/** Whether a topic change only adds or removes the resolved prefix (which is not a move). */
export function isResolveToggle(oldTopic: string, newTopic: string): boolean {
  return newTopic === RESOLVED_TOPIC_PREFIX + oldTopic || oldTopic === RESOLVED_TOPIC_PREFIX + newTopic;
}
