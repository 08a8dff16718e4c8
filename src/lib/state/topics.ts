// Register state for user_topic (user_topics) and the legacy muted_topics list, which is left out when
// the client explicitly asked for its replacement (as the reference describes).
import type { StateFetcher } from './context.js';
import { emptyTopicDisplayName } from '../realm-settings.js';
import { mutedTopicsList, userTopicEntries } from '../topics/visibility.js';
import { displayTopic } from '../../presenters/message.js';

export const userTopicState: StateFetcher = {
  types: ['user_topic', 'muted_topics'],
  async fetch({ tx, user, realm, opts }) {
    const o = opts as { fetchEventTypes?: string[] | null; eventTypes?: string[] | null };
    const list = o.fetchEventTypes ?? o.eventTypes ?? null;
    const display = { allowEmptyTopic: opts.capabilities.empty_topic_name === true, emptyTopicDisplayName: emptyTopicDisplayName(realm) };
    const out: Record<string, unknown> = {};
    if (!list || list.includes('user_topic')) out.user_topics = user ? await userTopicEntries(tx, user.id, display) : [];
    if (!list || (list.includes('muted_topics') && !list.includes('user_topic'))) {
      const muted = user ? await mutedTopicsList(tx, user.id) : [];
      out.muted_topics = muted.map(([name, topic, ts]) => [name, displayTopic(topic, display), ts]);
    }
    return out;
  },
};
