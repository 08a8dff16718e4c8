// Applies device add/remove events to a register state's devices dictionary (pure: no store, no lib).
import type { Event, State } from './apply-util.js';

export function applyDevice(state: State, e: Event): void {
  const devices = state.devices as Record<string, unknown> | undefined;
  if (!devices) return;
  const key = String(e.device_id);
  if (e.op === 'add') {
    devices[key] = { push_key_id: null, push_token_id: null, pending_push_token_id: null, push_token_last_updated_timestamp: null, push_registration_error_code: null };
  } else if (e.op === 'remove') {
    delete devices[key];
  }
}
