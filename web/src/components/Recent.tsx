// Recent conversations: the latest topics and direct conversations of the loaded messages, newest first.
import { useEffect } from 'preact/hooks';
import { messages, state } from '../store.js';
import { loadFeed } from '../feed-loader.js';
import { narrowKey, narrowToHash, type Narrow } from '../state/narrow.js';

const INBOX: Narrow = { kind: 'inbox' };

export function Recent() {
  const st = state.value!;
  useEffect(() => {
    if (!messages.value.feeds[narrowKey(INBOX)]) void loadFeed(INBOX);
  }, []);
  const latest = new Map<string, { narrow: Narrow; label: string; id: number; unread: number }>();
  for (const m of Object.values(messages.value.byId)) {
    const key = m.type === 'stream' ? `s:${m.stream_id}:${m.subject.toLowerCase()}` : `d:${m.dm_users.join(',')}`;
    const narrow: Narrow = m.type === 'stream' ? { kind: 'topic', stream_id: m.stream_id!, topic: m.subject } : { kind: 'dm', users: m.dm_users.filter((id) => id !== st.me) };
    const label = m.type === 'stream' ? `#${st.channels[m.stream_id!]?.name ?? 'unknown'} › ${m.subject}` : m.dm_users.filter((id) => id !== st.me).map((id) => st.users[id]?.full_name ?? 'Unknown user').join(', ') || 'You';
    const prev = latest.get(key);
    latest.set(key, { narrow, label, id: Math.max(prev?.id ?? 0, m.id), unread: (prev?.unread ?? 0) + (st.unread[m.id] ? 1 : 0) });
  }
  const rows = [...latest.values()].sort((a, b) => b.id - a.id).slice(0, 100);
  return (
    <section aria-label="Recent conversations" class="recent">
      <h1>Recent conversations</h1>
      <ul>
        {rows.map((r) => (
          <li key={narrowKey(r.narrow)}>
            <a href={narrowToHash(r.narrow)}>{r.label}</a>
            {r.unread > 0 && <span class="count">{r.unread}</span>}
          </li>
        ))}
      </ul>
    </section>
  );
}
