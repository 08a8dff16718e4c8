// Applies user_status and muted_users events to a register state, as a client would. Pure, like apply.ts.

type State = Record<string, any>;
type Event = Record<string, any>;

/** Only what an event names changes: empty text or emoji name removes it; a status left empty is dropped. */
export function applyUserStatus(state: State, e: Event): void {
  if (!state.user_status) return;
  const key = String(e.user_id);
  const s: Record<string, unknown> = { ...(state.user_status[key] ?? {}) };
  if (e.away === true) s.away = true;
  else if (e.away === false) delete s.away;
  if (typeof e.status_text === 'string') {
    if (e.status_text) s.status_text = e.status_text;
    else delete s.status_text;
  }
  if (typeof e.emoji_name === 'string') {
    if (e.emoji_name) Object.assign(s, { emoji_name: e.emoji_name, emoji_code: e.emoji_code, reaction_type: e.reaction_type });
    else for (const k of ['emoji_name', 'emoji_code', 'reaction_type']) delete s[k];
  }
  if (Object.keys(s).length) state.user_status[key] = s;
  else delete state.user_status[key];
}

/** A deactivated user (or one no longer accessible) leaves register's statuses. */
export function applyUserStatusOnRealmUser(state: State, e: Event): void {
  if (!state.user_status) return;
  if ((e.op === 'update' && e.person?.is_active === false) || e.op === 'remove') delete state.user_status[String(e.person.user_id)];
}

export function applyMutedUsers(state: State, e: Event): void {
  if (state.muted_users) state.muted_users = e.muted_users;
}
