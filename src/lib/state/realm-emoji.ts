// Register state for realm_emoji and realm_linkifiers (empty for clients without linkifier_url_template).
import type { StateFetcher } from './context.js';
import { realmEmojiDict } from '../realm-emoji.js';
import { realmLinkifiers } from '../linkifiers.js';

export const realmEmojiState: StateFetcher = {
  types: ['realm_emoji'],
  async fetch({ tx, realm }) {
    return { realm_emoji: await realmEmojiDict(tx, realm.id) };
  },
};

export const realmLinkifiersState: StateFetcher = {
  types: ['realm_linkifiers'],
  async fetch({ tx, realm, opts }) {
    return { realm_linkifiers: opts.capabilities.linkifier_url_template === true ? await realmLinkifiers(tx, realm.id) : [] };
  },
};
