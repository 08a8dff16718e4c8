// Applies a user's personal-data events (drafts, saved snippets, navigation views, alert words) to a
// register state, as a client would. Pure, like apply.ts, which dispatches here.

type State = Record<string, any>;
type Event = Record<string, any>;

/** Register's draft order: most recently edited first, then newest ID first. */
export const byDraftOrder = (a: any, b: any) => b.timestamp - a.timestamp || b.id - a.id;

export function applyDrafts(state: State, e: Event): void {
  if (!state.drafts) return;
  if (e.op === 'add') {
    const ids = new Set(e.drafts.map((d: any) => d.id));
    state.drafts = [...state.drafts.filter((d: any) => !ids.has(d.id)), ...e.drafts];
  } else if (e.op === 'update') {
    state.drafts = [...state.drafts.filter((d: any) => d.id !== e.draft.id), e.draft];
  } else if (e.op === 'remove') {
    state.drafts = state.drafts.filter((d: any) => d.id !== e.draft_id);
  }
  state.drafts.sort(byDraftOrder);
}

/** Turning drafts synchronization off deletes the stored drafts without drafts events. */
export function applyDraftsSetting(state: State, e: Event): void {
  if (e.op === 'update' && e.property === 'enable_drafts_synchronization' && e.value === false && state.drafts) state.drafts = [];
}

export function applySavedSnippets(state: State, e: Event): void {
  if (!state.saved_snippets) return;
  const list: any[] = state.saved_snippets;
  if (e.op === 'add') {
    list.push(e.saved_snippet);
    list.sort((a, b) => a.id - b.id);
  } else if (e.op === 'update') {
    const i = list.findIndex((x) => x.id === e.saved_snippet.id);
    if (i >= 0) list[i] = e.saved_snippet;
  } else if (e.op === 'remove') {
    state.saved_snippets = list.filter((x) => x.id !== e.saved_snippet_id);
  }
}

export function applyNavigationView(state: State, e: Event): void {
  if (!state.navigation_views) return;
  const list: any[] = state.navigation_views;
  if (e.op === 'add') {
    list.push(e.navigation_view);
  } else if (e.op === 'update') {
    const v = list.find((x) => x.fragment === e.fragment);
    if (v) Object.assign(v, e.data);
  } else if (e.op === 'remove') {
    state.navigation_views = list.filter((x) => x.fragment !== e.fragment);
  }
}

export function applyAlertWords(state: State, e: Event): void {
  if (state.alert_words) state.alert_words = [...e.alert_words];
}
