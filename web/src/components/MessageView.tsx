// One message: sender, time, the server's sanitized HTML as is, reactions, and its actions.
import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import { api } from '../api.js';
import { requestCompose, selectedId, state } from '../store.js';
import type { Message, Reaction } from '../state/messages.js';
import { timeOf } from '../time.js';
import { emojiChar, showUnicodeEmoji } from '../emoji.js';
import { EmojiPicker } from './EmojiPicker.js';

function groupReactions(list: Reaction[]): { r: Reaction; users: number[] }[] {
  const groups = new Map<string, { r: Reaction; users: number[] }>();
  for (const r of list) {
    const k = `${r.reaction_type}:${r.emoji_code}`;
    const g = groups.get(k) ?? { r, users: [] };
    g.users.push(r.user_id);
    groups.set(k, g);
  }
  return [...groups.values()];
}

export function MessageView({ m, showSender, selected }: { m: Message; showSender: boolean; selected: boolean }) {
  const st = state.value!;
  const [picker, setPicker] = useState(false);
  const [editing, setEditing] = useState<string | null>(null);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const [history, setHistory] = useState<any[] | null>(null);
  const [error, setError] = useState('');
  const mine = m.sender_id === st.me;
  const starred = m.flags.includes('starred');
  const twentyFour = st.settings.twenty_four_hour_time === true;
  const run = (p: Promise<unknown>) => p.then(() => setError('')).catch((e: Error) => setError(e.message));

  const react = (name: string, code: string, type: string, on: boolean) =>
    run(api(on ? 'POST' : 'DELETE', `messages/${m.id}/reactions`, { emoji_name: name, emoji_code: code, reaction_type: type }));

  async function startEdit() {
    const raw = await api('GET', `messages/${m.id}`, { apply_markdown: false });
    setEditing(raw.raw_content ?? raw.message.content);
  }

  async function showHistory() {
    const r = await api('GET', `messages/${m.id}/history`);
    setHistory(r.message_history);
  }

  return (
    <article id={`message-${m.id}`} class={`message${selected ? ' selected' : ''}${st.unread[m.id] ? ' unread' : ''}`} tabIndex={-1} aria-label={`${m.sender_full_name}, ${timeOf(m.timestamp, twentyFour)}`} onClick={() => (selectedId.value = m.id)}>
      {showSender && (
        <header class="sender">
          <strong>{m.sender_full_name}</strong> <time dateTime={new Date(m.timestamp * 1000).toISOString()}>{timeOf(m.timestamp, twentyFour)}</time>
          {m.last_edit_timestamp !== null && <span class="edited"> (edited)</span>}
        </header>
      )}
      {editing === null ? (
        <MessageContent html={m.content} />
      ) : (
        <form
          class="edit"
          onSubmit={(e) => {
            e.preventDefault();
            void run(api('PATCH', `messages/${m.id}`, { content: editing }).then(() => setEditing(null)));
          }}
        >
          <textarea aria-label="Edit message" value={editing} onInput={(e) => setEditing(e.currentTarget.value)} />
          <button type="submit">Save</button>
          <button type="button" onClick={() => setEditing(null)}>
            Cancel
          </button>
        </form>
      )}
      {m.reactions.length > 0 && (
        <div class="reactions">
          {groupReactions(m.reactions).map(({ r, users }) => {
            const on = users.includes(st.me);
            const label = r.reaction_type === 'unicode_emoji' ? emojiChar(r.emoji_code) : `:${r.emoji_name}:`;
            return (
              <button key={r.emoji_code} type="button" class="reaction" aria-pressed={on} aria-label={`${r.emoji_name}: ${users.length}`} onClick={() => void react(r.emoji_name, r.emoji_code, r.reaction_type, !on)}>
                {label} {users.length}
              </button>
            );
          })}
        </div>
      )}
      <div class="actions">
        <button type="button" aria-label="Add reaction" aria-expanded={picker} onClick={() => setPicker(!picker)}>
          ☺
        </button>
        <button type="button" aria-pressed={starred} onClick={() => void run(api('POST', 'messages/flags', { messages: [m.id], op: starred ? 'remove' : 'add', flag: 'starred' }))}>
          {starred ? 'Unstar' : 'Star'}
        </button>
        <button type="button" onClick={() => requestCompose('quote', m.id)}>
          Quote and reply
        </button>
        {mine && (
          <button type="button" onClick={() => void run(startEdit())}>
            Edit
          </button>
        )}
        {mine &&
          (confirmDelete ? (
            <button type="button" class="danger" onClick={() => void run(api('DELETE', `messages/${m.id}`))}>
              Confirm delete
            </button>
          ) : (
            <button type="button" onClick={() => setConfirmDelete(true)}>
              Delete
            </button>
          ))}
        {m.last_edit_timestamp !== null && (
          <button type="button" onClick={() => void run(showHistory())}>
            Edit history
          </button>
        )}
      </div>
      {picker && (
        <EmojiPicker
          onPick={(name, code) => {
            setPicker(false);
            void react(name, code, 'unicode_emoji', true);
          }}
          onClose={() => setPicker(false)}
        />
      )}
      {history && (
        <section class="history" aria-label="Edit history">
          <button type="button" onClick={() => setHistory(null)}>
            Close history
          </button>
          <ol>
            {history.map((h, i) => (
              <li key={i}>
                <time>{new Date(h.timestamp * 1000).toLocaleString()}</time>
                {h.topic !== undefined && <span> topic: {h.topic}</span>}
                {h.rendered_content !== undefined && <MessageContent html={h.rendered_content} />}
              </li>
            ))}
          </ol>
        </section>
      )}
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
    </article>
  );
}

/** The server's rendered, sanitized HTML, inserted as it is; emoji spans then show their character. */
export function MessageContent({ html }: { html: string }) {
  const ref = useRef<HTMLDivElement>(null);
  useLayoutEffect(() => {
    if (ref.current) showUnicodeEmoji(ref.current);
  }, [html]);
  return <div ref={ref} class="content" dangerouslySetInnerHTML={{ __html: html }} />;
}
