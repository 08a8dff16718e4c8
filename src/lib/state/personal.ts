// Register state for a user's personal data: drafts, saved_snippets, navigation_views, alert_words.
import type { StateFetcher } from './context.js';
import { userDrafts } from '../personal/drafts.js';
import { userSnippets } from '../personal/snippets.js';
import { userNavigationViews } from '../personal/navigation-views.js';
import { userAlertWords } from '../personal/alert-words.js';

/** drafts: most recently edited first (then newest ID); empty when synchronization is off, since turning it off deletes them. */
const draftsState: StateFetcher = {
  types: ['drafts'],
  async fetch({ tx, user }) {
    return { drafts: user ? await userDrafts(tx, user.id) : [] };
  },
};

/** saved_snippets: by ID. */
const savedSnippetsState: StateFetcher = {
  types: ['saved_snippets'],
  async fetch({ tx, user }) {
    return { saved_snippets: user ? await userSnippets(tx, user.id) : [] };
  },
};

/** navigation_views (its events are of type navigation_view): in the order they were configured. */
const navigationViewsState: StateFetcher = {
  types: ['navigation_views', 'navigation_view'],
  async fetch({ tx, user }) {
    return { navigation_views: user ? await userNavigationViews(tx, user.id) : [] };
  },
};

/** alert_words: in the order they were added. */
const alertWordsState: StateFetcher = {
  types: ['alert_words'],
  async fetch({ tx, user }) {
    return { alert_words: user ? await userAlertWords(tx, user.id) : [] };
  },
};

export const personalStates: StateFetcher[] = [draftsState, savedSnippetsState, navigationViewsState, alertWordsState];
