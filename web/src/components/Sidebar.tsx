// The left sidebar: views, channels (pinned first, muted dimmed, unread counts), the open channel's topics, and DMs.
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.js';
import { currentNarrow, messages, route, state } from '../store.js';
import { narrowToHash } from '../state/narrow.js';
import type { ClientState } from '../state/model.js';

function unreadCounts(st: ClientState) {
  const byStream: Record<number, number> = {};
  const byTopic: Record<string, number> = {};
  const byDm: Record<string, number> = {};
  for (const place of Object.values(st.unread)) {
    if (place.kind === 'stream') {
      byStream[place.stream_id] = (byStream[place.stream_id] ?? 0) + 1;
      const k = `${place.stream_id}:${place.topic.toLowerCase()}`;
      byTopic[k] = (byTopic[k] ?? 0) + 1;
    } else byDm[place.key] = (byDm[place.key] ?? 0) + 1;
  }
  return { byStream, byTopic, byDm };
}

const Count = ({ n, label }: { n: number; label: string }) =>
  n > 0 ? (
    <span class="count">
      <span class="visually-hidden">{label}: </span>
      {n}
    </span>
  ) : null;

export function Sidebar() {
  const st = state.value!;
  const narrow = currentNarrow.value;
  const counts = unreadCounts(st);
  const subs = Object.values(st.subscriptions).sort((a, b) => Number(b.pin_to_top) - Number(a.pin_to_top) || a.name.localeCompare(b.name));
  const openStream = narrow.kind === 'stream' || narrow.kind === 'topic' ? narrow.stream_id : null;
  const dmKeys = new Set(Object.keys(counts.byDm));
  // Conversations seen in loaded messages are listed too.
  for (const m of Object.values(messages.value.byId)) if (m.type === 'private') dmKeys.add(m.dm_users.filter((id) => id !== st.me).join(','));
  const isCurrent = (hash: string) => (location.hash === hash ? 'page' : undefined);
  return (
    <aside class="sidebar" aria-label="Sidebar">
      <nav aria-label="Views">
        <ul>
          <li>
            <a href="#inbox" aria-current={narrow.kind === 'inbox' && route.value.page === 'feed' ? 'page' : undefined}>
              Inbox
            </a>
            <Count n={Object.keys(st.unread).length} label="unread" />
          </li>
          <li>
            <a href="#recent" aria-current={isCurrent('#recent')}>
              Recent conversations
            </a>
          </li>
          <li>
            <a href="#narrow/is/mentioned" aria-current={isCurrent('#narrow/is/mentioned')}>
              Mentions
            </a>
            <Count n={st.mentions.length} label="unread mentions" />
          </li>
          <li>
            <a href="#narrow/is/starred" aria-current={isCurrent('#narrow/is/starred')}>
              Starred
            </a>
          </li>
        </ul>
      </nav>
      <nav aria-label="Channels">
        <h2>Channels</h2>
        <ul>
          {subs.map((s) => (
            <li key={s.stream_id} class={s.is_muted ? 'muted' : ''}>
              <span class="swatch" style={{ background: s.color }} aria-hidden="true" />
              <a href={narrowToHash({ kind: 'stream', stream_id: s.stream_id })} aria-current={openStream === s.stream_id && narrow.kind === 'stream' ? 'page' : undefined}>
                {s.name}
              </a>
              <Count n={counts.byStream[s.stream_id] ?? 0} label="unread" />
              {openStream === s.stream_id && <Topics streamId={s.stream_id} counts={counts.byTopic} />}
            </li>
          ))}
        </ul>
      </nav>
      <a class="small" href="#settings/channels">
        Browse channels
      </a>
      <nav aria-label="Direct messages">
        <h2>Direct messages</h2>
        <ul>
          {[...dmKeys].map((key) => {
            const ids = key ? key.split(',').map(Number) : [st.me];
            const names = ids.map((id) => st.users[id]?.full_name ?? 'Unknown user').join(', ');
            return (
              <li key={key}>
                <a href={narrowToHash({ kind: 'dm', users: ids })}>{names}</a>
                <Count n={counts.byDm[key] ?? 0} label="unread" />
              </li>
            );
          })}
        </ul>
      </nav>
    </aside>
  );
}

function Topics({ streamId, counts }: { streamId: number; counts: Record<string, number> }) {
  const [topics, setTopics] = useState<{ name: string; max_id: number }[]>([]);
  const narrow = currentNarrow.value;
  // Topics are fetched when the channel opens and again as its messages change.
  const newest = Object.values(messages.value.byId).reduce((max, m) => (m.stream_id === streamId ? Math.max(max, m.id) : max), 0);
  useEffect(() => {
    let live = true;
    api('GET', `users/me/${streamId}/topics`)
      .then((r) => live && setTopics(r.topics))
      .catch(() => live && setTopics([]));
    return () => {
      live = false;
    };
  }, [streamId, newest]);
  return (
    <ul class="topics">
      {topics.slice(0, 30).map((t) => {
        const resolved = t.name.startsWith('✔ ');
        const open = narrow.kind === 'topic' && narrow.stream_id === streamId && narrow.topic === t.name;
        return (
          <li key={t.name}>
            <a href={narrowToHash({ kind: 'topic', stream_id: streamId, topic: t.name })} aria-current={open ? 'page' : undefined}>
              {resolved && <span aria-label="resolved">✔ </span>}
              {resolved ? t.name.slice(2) : t.name || 'general chat'}
            </a>
            <Count n={counts[`${streamId}:${t.name.toLowerCase()}`] ?? 0} label="unread" />
          </li>
        );
      })}
    </ul>
  );
}
