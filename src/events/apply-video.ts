// Applies has_videoprovider_token and has_webex_token events to a register state (pure: no store, no lib).
import type { Event, State } from './apply-util.js';

export function applyVideoToken(state: State, e: Event): void {
  if ('has_videoprovider_token' in state) state.has_videoprovider_token = e.value;
  if ('has_zoom_token' in state) state.has_zoom_token = e.value;
}

export function applyWebexToken(state: State, e: Event): void {
  if ('has_webex_token' in state) state.has_webex_token = e.value;
}
