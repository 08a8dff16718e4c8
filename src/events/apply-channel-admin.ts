// Applies the channel and organization administration events to a register state (pure).
import type { Event, State } from './apply-util.js';

/** Returns false for an event type this file does not handle. */
export function applyChannelAdmin(state: State, e: Event): boolean {
  switch (e.type) {
    case 'default_streams':
      if (state.realm_default_streams) state.realm_default_streams = e.default_streams;
      return true;
    case 'channel_folder':
      applyChannelFolder(state, e);
      return true;
    case 'realm_domains':
      applyRealmDomains(state, e);
      return true;
    case 'realm_playgrounds':
      if (state.realm_playgrounds) state.realm_playgrounds = e.realm_playgrounds;
      return true;
    case 'realm_user_settings_defaults':
      if (e.op === 'update' && state.realm_user_settings_defaults) state.realm_user_settings_defaults[e.property] = e.value;
      return true;
    default:
      return false;
  }
}

const byOrder = (a: any, b: any) => a.order - b.order || a.id - b.id;

function applyChannelFolder(state: State, e: Event): void {
  const list = state.channel_folders;
  if (!list) return;
  if (e.op === 'add') {
    list.push(e.channel_folder);
    list.sort(byOrder);
  } else if (e.op === 'update') {
    const f = list.find((x: any) => x.id === e.channel_folder_id);
    if (f) Object.assign(f, e.data);
  } else if (e.op === 'reorder') {
    const position = new Map<number, number>((e.order as number[]).map((id, i) => [id, i]));
    for (const f of list) if (position.has(f.id)) f.order = position.get(f.id);
    list.sort(byOrder);
  }
}

function applyRealmDomains(state: State, e: Event): void {
  const list = state.realm_domains;
  if (!list) return;
  if (e.op === 'add') {
    list.push(e.realm_domain);
    list.sort((a: any, b: any) => (a.domain < b.domain ? -1 : a.domain > b.domain ? 1 : 0));
  } else if (e.op === 'change') {
    const d = list.find((x: any) => x.domain === e.realm_domain.domain);
    if (d) d.allow_subdomains = e.realm_domain.allow_subdomains;
  } else if (e.op === 'remove') {
    state.realm_domains = list.filter((x: any) => x.domain !== e.domain);
  }
}
