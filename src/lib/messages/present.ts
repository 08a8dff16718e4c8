// Finalizing fetched messages for one request: client options, empty-topic display, flags.
import type { Realm } from '../../store/schema.js';
import { finalizeMessage } from '../../presenters/message.js';
import { avatarUrl, type AvatarInfo } from '../../presenters/avatar.js';
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
  const finalizeOpts = { ...opts, emptyTopicDisplayName: emptyTopicDisplayName(realm), showEditHistory: policy !== 'none' };
  // A sender's messages share one avatar description (buildMessageDicts), so its URL (an MD5 for
  // third-party avatars) is computed once per sender, not per message.
  const avatarUrls = new Map<AvatarInfo, string | null>();
  const avatarUrlOf = (a: AvatarInfo): string | null => {
    let url = avatarUrls.get(a);
    if (url === undefined) avatarUrls.set(a, (url = avatarUrl(a, { clientGravatar: opts.clientGravatar })));
    return url;
  };
  return items.map(({ dict, flags }) => {
    // finalizeMessage returns a new object: flags are added to it rather than copied into another.
    const out = finalizeMessage(policy === 'moves' ? { ...dict, edit_history: visibleEditHistory(dict.edit_history, policy) } : dict, finalizeOpts, avatarUrlOf(dict.sender_avatar));
    out.flags = flagNames(flags);
    return out;
  });
}
