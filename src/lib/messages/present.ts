// Finalizing fetched messages for one request: client options, empty-topic display, flags.
import type { Realm } from '../../store/schema.js';
import { finalizeMessage } from '../../presenters/message.js';
import { flagNames } from '../../models/flags.js';
import { emptyTopicDisplayName } from '../realm-settings.js';
import type { MessageWithFlags } from './fetch.js';
import { editHistoryPolicy, visibleEditHistory } from './history.js';

export interface PresentOptions {
  applyMarkdown: boolean;
  clientGravatar: boolean;
  allowEmptyTopic: boolean;
}

export function presentMessages(realm: Realm, items: MessageWithFlags[], opts: PresentOptions): Record<string, unknown>[] {
  // The organization may hide edit history entirely, or show only moves.
  const policy = editHistoryPolicy(realm);
  const emptyTopicName = emptyTopicDisplayName(realm);
  return items.map(({ dict, flags }) => ({
    ...finalizeMessage(policy === 'moves' ? { ...dict, edit_history: visibleEditHistory(dict.edit_history, policy) } : dict, {
      ...opts,
      emptyTopicDisplayName: emptyTopicName,
      showEditHistory: policy !== 'none',
    }),
    flags: flagNames(flags),
  }));
}
