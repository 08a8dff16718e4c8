// Applies scheduled-message and attachment events to a register state.
import type { Event, State } from './apply-util.js';

const bySchedule = (a: any, b: any) => a.scheduled_delivery_timestamp - b.scheduled_delivery_timestamp || a.scheduled_message_id - b.scheduled_message_id;

export function applyScheduledMessages(state: State, e: Event): void {
  if (!state.scheduled_messages) return;
  const list: any[] = state.scheduled_messages;
  if (e.op === 'add') {
    const ids = new Set(e.scheduled_messages.map((m: any) => m.scheduled_message_id));
    state.scheduled_messages = [...list.filter((m) => !ids.has(m.scheduled_message_id)), ...e.scheduled_messages].sort(bySchedule);
  } else if (e.op === 'update') {
    const id = e.scheduled_message.scheduled_message_id;
    state.scheduled_messages = list.map((m) => (m.scheduled_message_id === id ? e.scheduled_message : m)).sort(bySchedule);
  } else if (e.op === 'remove') {
    state.scheduled_messages = list.filter((m) => m.scheduled_message_id !== e.scheduled_message_id);
  }
}
