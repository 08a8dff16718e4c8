// Narrows (which messages a feed shows): their API form, their URL form, and whether a message belongs.
import { dmKey } from './model.js';

export type Narrow =
  | { kind: 'inbox' }
  | { kind: 'stream'; stream_id: number }
  | { kind: 'topic'; stream_id: number; topic: string }
  | { kind: 'dm'; users: number[] }
  | { kind: 'mentions' }
  | { kind: 'starred' }
  | { kind: 'search'; query: string };

/** The `narrow` parameter of GET /messages. */
export function apiNarrow(n: Narrow): { operator: string; operand: unknown }[] {
  switch (n.kind) {
    case 'inbox':
      return [];
    case 'stream':
      return [{ operator: 'channel', operand: n.stream_id }];
    case 'topic':
      return [
        { operator: 'channel', operand: n.stream_id },
        { operator: 'topic', operand: n.topic },
      ];
    case 'dm':
      return [{ operator: 'dm', operand: n.users }];
    case 'mentions':
      return [{ operator: 'is', operand: 'mentioned' }];
    case 'starred':
      return [{ operator: 'is', operand: 'starred' }];
    case 'search':
      return [{ operator: 'search', operand: n.query }];
  }
}

/** A stable key for a narrow (the feed cache is keyed by it). */
export const narrowKey = (n: Narrow): string => JSON.stringify(n.kind === 'dm' ? { ...n, users: [...n.users].sort((a, b) => a - b) } : n);

/** Whether a new message belongs in an already loaded feed; search results are not updated live. */
export function matchesNarrow(msg: any, n: Narrow, me: number): boolean {
  switch (n.kind) {
    case 'inbox':
      return true;
    case 'stream':
      return msg.type === 'stream' && msg.stream_id === n.stream_id;
    case 'topic':
      return msg.type === 'stream' && msg.stream_id === n.stream_id && String(msg.subject).toLowerCase() === n.topic.toLowerCase();
    case 'dm': {
      if (msg.type !== 'private') return false;
      const others = (msg.display_recipient as { id: number }[]).map((r) => r.id).filter((id) => id !== me);
      return dmKey(others) === dmKey(n.users.filter((id) => id !== me));
    }
    case 'mentions':
      return (msg.flags ?? []).some((f: string) => f.includes('mentioned'));
    case 'starred':
      return (msg.flags ?? []).includes('starred');
    case 'search':
      return false;
  }
}

/** The narrow in the page URL's hash ("#narrow/channel/3/topic/hello"), and back. */
export function narrowToHash(n: Narrow): string {
  switch (n.kind) {
    case 'inbox':
      return '#inbox';
    case 'stream':
      return `#narrow/channel/${n.stream_id}`;
    case 'topic':
      return `#narrow/channel/${n.stream_id}/topic/${encodeURIComponent(n.topic)}`;
    case 'dm':
      return `#narrow/dm/${n.users.join(',')}`;
    case 'mentions':
      return '#narrow/is/mentioned';
    case 'starred':
      return '#narrow/is/starred';
    case 'search':
      return `#narrow/search/${encodeURIComponent(n.query)}`;
  }
}

export function narrowFromHash(hash: string): Narrow {
  const parts = hash.replace(/^#/, '').split('/');
  if (parts[0] !== 'narrow') return { kind: 'inbox' };
  try {
    if (parts[1] === 'channel' && /^\d+$/.test(parts[2] ?? '')) {
      const id = Number(parts[2]);
      return parts[3] === 'topic' ? { kind: 'topic', stream_id: id, topic: decodeURIComponent(parts.slice(4).join('/')) } : { kind: 'stream', stream_id: id };
    }
    if (parts[1] === 'dm' && parts[2]) return { kind: 'dm', users: parts[2].split(',').map(Number).filter((x) => x > 0) };
    if (parts[1] === 'is' && parts[2] === 'mentioned') return { kind: 'mentions' };
    if (parts[1] === 'is' && parts[2] === 'starred') return { kind: 'starred' };
    if (parts[1] === 'search') return { kind: 'search', query: decodeURIComponent(parts.slice(2).join('/')) };
  } catch {
    // A mangled URL falls back to the inbox.
  }
  return { kind: 'inbox' };
}
