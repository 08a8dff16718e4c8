// The right sidebar: people with presence (active in the last 140 seconds, idle, offline); a click opens a DM.
import { state } from '../store.js';
import { narrowToHash } from '../state/narrow.js';

const ACTIVE_SECS = 140;

export function People() {
  const st = state.value!;
  const now = Date.now() / 1000;
  const statusOf = (id: number): 'active' | 'idle' | 'offline' => {
    const p = st.presence[id];
    if (!p) return 'offline';
    if (now - p.active_timestamp < ACTIVE_SECS) return 'active';
    if (now - p.idle_timestamp < ACTIVE_SECS) return 'idle';
    return 'offline';
  };
  const rank = { active: 0, idle: 1, offline: 2 };
  const people = Object.values(st.users)
    .filter((u) => !u.is_bot)
    .map((u) => ({ ...u, status: statusOf(u.user_id) }))
    .sort((a, b) => rank[a.status] - rank[b.status] || a.full_name.localeCompare(b.full_name))
    .slice(0, 200);
  return (
    <aside class="people" aria-label="People">
      <h2>People</h2>
      <ul>
        {people.map((u) => (
          <li key={u.user_id}>
            <span class={`dot ${u.status}`} role="img" aria-label={u.status} />
            <a href={narrowToHash({ kind: 'dm', users: [u.user_id] })}>{u.full_name}</a>
          </li>
        ))}
      </ul>
    </aside>
  );
}
