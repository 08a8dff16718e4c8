// Applies `realm` events (organization settings changed) to register's realm_* fields.
import type { Event, State } from './apply-util.js';

/** `update` carries one property and its value; `update_dict` (property "default") several in `data`. */
export function applyRealmSettings(state: State, e: Event): void {
  if (!('realm_name' in state)) return;
  if (e.op === 'update') state[`realm_${e.property}`] = e.value;
  else if (e.op === 'update_dict' && e.property === 'default') {
    for (const [k, v] of Object.entries(e.data as Record<string, unknown>)) state[`realm_${k}`] = v;
  }
}
