// Browser notifications for mentions and direct messages, when the user allowed them and is elsewhere.
import type { ClientState } from './state/model.js';

export function notifyIfWanted(e: any, st: ClientState): void {
  if (typeof Notification === 'undefined' || Notification.permission !== 'granted' || !document.hidden) return;
  if (st.settings.enable_desktop_notifications === false) return;
  const msg = e.message;
  if (msg.sender_id === st.me) return;
  const flags: string[] = e.flags ?? [];
  const wanted = msg.type === 'private' || flags.includes('mentioned');
  if (!wanted) return;
  // The body is the text of the server's HTML, never HTML.
  const text = new DOMParser().parseFromString(msg.content, 'text/html').body.textContent ?? '';
  new Notification(msg.sender_full_name, { body: text.slice(0, 200), tag: `parley-${msg.id}` });
}
