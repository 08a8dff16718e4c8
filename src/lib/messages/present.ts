// Finalizing fetched messages for one request: client options, empty-topic display, flags.
import type { Realm } from '../../store/schema.js';
import { finalizeMessage } from '../../presenters/message.js';
import { flagNames } from '../../models/flags.js';
import { emptyTopicDisplayName, realmSettings } from '../realm-settings.js';
import type { MessageWithFlags } from './fetch.js';

export interface PresentOptions {
  applyMarkdown: boolean;
  clientGravatar: boolean;
  allowEmptyTopic: boolean;
}

export function presentMessages(realm: Realm, items: MessageWithFlags[], opts: PresentOptions): Record<string, unknown>[] {
  const showEditHistory = realmSettings(realm).message_edit_history_visibility_policy !== 'none';
  const emptyTopicName = emptyTopicDisplayName(realm);
  return items.map(({ dict, flags }) => ({
    ...finalizeMessage(dict, { ...opts, emptyTopicDisplayName: emptyTopicName, showEditHistory }),
    flags: flagNames(flags),
  }));
}
