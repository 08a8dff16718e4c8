// The compose box: channel and topic (or DM recipients), Markdown with preview, autocomplete,
// Enter to send, drafts saved to the server, typing notifications, and uploads with progress.
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, uploadFile } from '../api.js';
import { composeRequest, currentNarrow, messages, serverInfo, state } from '../store.js';
import type { Narrow } from '../state/narrow.js';
import { Autocomplete, completionAt, type Completion } from './Autocomplete.js';
import { TypingReporter } from '../typing.js';
import { enterSendsPreference } from '../preferences.js';
import { MessageContent } from './MessageView.js';

type Target = { type: 'stream'; stream_id: number | null; topic: string } | { type: 'direct'; to: number[] };

function targetFor(n: Narrow, fallbackStream: number | null): Target {
  if (n.kind === 'topic') return { type: 'stream', stream_id: n.stream_id, topic: n.topic };
  if (n.kind === 'stream') return { type: 'stream', stream_id: n.stream_id, topic: '' };
  if (n.kind === 'dm') return { type: 'direct', to: n.users };
  return { type: 'stream', stream_id: fallbackStream, topic: '' };
}

export function Compose() {
  const st = state.value!;
  const narrow = currentNarrow.value;
  const subs = Object.values(st.subscriptions).sort((a, b) => a.name.localeCompare(b.name));
  const [target, setTarget] = useState<Target>(() => targetFor(narrow, subs[0]?.stream_id ?? null));
  const [content, setContent] = useState('');
  const [preview, setPreview] = useState<string | null>(null);
  const [error, setError] = useState('');
  const [uploads, setUploads] = useState<{ name: string; progress: number }[]>([]);
  const [completion, setCompletion] = useState<Completion | null>(null);
  const [dragging, setDragging] = useState(false);
  const textarea = useRef<HTMLTextAreaElement>(null);
  const draftId = useRef<number | null>(null);
  const typingReporter = useRef(new TypingReporter());

  useEffect(() => {
    setTarget(targetFor(narrow, subs[0]?.stream_id ?? null));
  }, [JSON.stringify(narrow)]);

  // Reply (r), quote, or focus (c) asked for from elsewhere.
  const request = composeRequest.value;
  useEffect(() => {
    if (!request) return;
    const m = request.messageId !== undefined ? messages.value.byId[request.messageId] : undefined;
    if (m) setTarget(m.type === 'stream' ? { type: 'stream', stream_id: m.stream_id, topic: m.subject } : { type: 'direct', to: m.dm_users.filter((id) => id !== st.me) });
    if (request.kind === 'quote' && m) {
      void api('GET', `messages/${m.id}`, { apply_markdown: false }).then((r) => {
        const raw: string = r.raw_content ?? r.message.content;
        setContent((c) => `${c}${c ? '\n' : ''}@_**${m.sender_full_name}|${m.sender_id}** said:\n\`\`\`quote\n${raw}\n\`\`\`\n`);
      });
    }
    textarea.current?.focus();
  }, [request?.nonce]);

  const dest = (): Record<string, unknown> | null => {
    if (target.type === 'direct') return target.to.length ? { type: 'direct', to: target.to } : null;
    return target.stream_id === null ? null : { type: 'stream', to: target.stream_id, topic: target.topic };
  };

  // Drafts are saved to the server a moment after typing stops, and removed when sent.
  useEffect(() => {
    if (!content.trim()) return;
    const t = setTimeout(() => {
      const d = {
        type: target.type === 'direct' ? 'private' : 'stream',
        to: target.type === 'direct' ? target.to : target.stream_id === null ? [] : [target.stream_id],
        topic: target.type === 'stream' ? target.topic : '',
        content,
        timestamp: Math.floor(Date.now() / 1000),
      };
      const saving = draftId.current === null ? api('POST', 'drafts', { drafts: [d] }).then((r) => (draftId.current = r.ids[0])) : api('PATCH', `drafts/${draftId.current}`, { draft: d });
      saving.catch(() => {
        // A draft that cannot be saved (for example, no channel chosen yet) is kept in the box.
      });
    }, 1500);
    return () => clearTimeout(t);
  }, [content, JSON.stringify(target)]);

  async function send() {
    const to = dest();
    if (!to || !content.trim()) {
      setError(!to ? 'Choose a channel or recipients first.' : 'Write a message first.');
      return;
    }
    setError('');
    try {
      await api('POST', 'messages', { ...to, content });
      typingReporter.current.stop();
      setContent('');
      setPreview(null);
      if (draftId.current !== null) {
        void api('DELETE', `drafts/${draftId.current}`).catch(() => undefined);
        draftId.current = null;
      }
    } catch (e) {
      setError((e as Error).message);
    }
  }

  function onInput(value: string, caret: number) {
    setContent(value);
    setCompletion(completionAt(value, caret));
    const to = dest();
    if (to && value.trim()) typingReporter.current.typed(to, serverInfo.value);
    else typingReporter.current.stop();
  }

  function insertCompletion(text: string) {
    if (!completion) return;
    const next = content.slice(0, completion.start) + text + ' ' + content.slice(completion.end);
    setContent(next);
    setCompletion(null);
    const caret = completion.start + text.length + 1;
    requestAnimationFrame(() => textarea.current?.setSelectionRange(caret, caret));
  }

  async function uploadAll(files: File[]) {
    for (const file of files) {
      setUploads((u) => [...u, { name: file.name, progress: 0 }]);
      try {
        const r = await uploadFile(file, (p) => setUploads((u) => u.map((x) => (x.name === file.name ? { ...x, progress: p } : x))));
        setContent((c) => `${c}${c && !c.endsWith('\n') ? '\n' : ''}[${r.filename}](${r.url})\n`);
      } catch (e) {
        setError((e as Error).message);
      } finally {
        setUploads((u) => u.filter((x) => x.name !== file.name));
      }
    }
  }

  async function togglePreview() {
    if (preview !== null) return setPreview(null);
    try {
      const r = await api('POST', 'messages/render', { content });
      setPreview(r.rendered);
    } catch (e) {
      setError((e as Error).message);
    }
  }

  const enterSends = enterSendsPreference.value;
  return (
    <form
      class={`compose${dragging ? ' dragging' : ''}`}
      aria-label="Compose"
      onSubmit={(e) => {
        e.preventDefault();
        void send();
      }}
      onDragOver={(e) => {
        e.preventDefault();
        setDragging(true);
      }}
      onDragLeave={() => setDragging(false)}
      onDrop={(e) => {
        e.preventDefault();
        setDragging(false);
        void uploadAll([...(e.dataTransfer?.files ?? [])]);
      }}
    >
      <div class="compose-to">
        {target.type === 'stream' ? (
          <>
            <select aria-label="Channel" value={target.stream_id ?? ''} onChange={(e) => setTarget({ ...target, stream_id: Number(e.currentTarget.value) })}>
              {subs.map((s) => (
                <option key={s.stream_id} value={s.stream_id}>
                  #{s.name}
                </option>
              ))}
            </select>
            <input aria-label="Topic" placeholder="Topic" value={target.topic} onInput={(e) => setTarget({ ...target, topic: e.currentTarget.value })} />
          </>
        ) : (
          <span class="dm-to">To: {target.to.map((id) => st.users[id]?.full_name ?? 'Unknown user').join(', ') || 'yourself'}</span>
        )}
      </div>
      <div class="compose-body">
        {preview !== null ? (
          <section class="preview" aria-label="Preview">
            <MessageContent html={preview} />
          </section>
        ) : (
          <textarea
            ref={textarea}
            id="compose-message"
            aria-label="Message"
            placeholder={enterSends ? 'Message (Enter to send, Shift+Enter for a new line)' : 'Message (Ctrl+Enter to send)'}
            value={content}
            onInput={(e) => onInput(e.currentTarget.value, e.currentTarget.selectionStart)}
            onBlur={() => setTimeout(() => setCompletion(null), 150)}
            onPaste={(e) => {
              const files = [...(e.clipboardData?.files ?? [])];
              if (files.length) {
                e.preventDefault();
                void uploadAll(files);
              }
            }}
            onKeyDown={(e) => {
              if (completion && (e.key === 'ArrowDown' || e.key === 'ArrowUp' || e.key === 'Tab' || (e.key === 'Enter' && completion.items.length))) return;
              if (e.key === 'Escape') setCompletion(null);
              const sendKey = e.key === 'Enter' && (enterSends ? !e.shiftKey : e.ctrlKey || e.metaKey);
              if (sendKey) {
                e.preventDefault();
                void send();
              }
            }}
          />
        )}
        {completion && completion.items.length > 0 && <Autocomplete completion={completion} onChoose={insertCompletion} onClose={() => setCompletion(null)} />}
      </div>
      {uploads.map((u) => (
        <p key={u.name} class="upload" role="status">
          Uploading {u.name}: <progress value={u.progress} max={1} aria-label={`Uploading ${u.name}`} /> {Math.round(u.progress * 100)}%
        </p>
      ))}
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      <div class="compose-actions">
        <label class="button">
          Attach files
          <input
            type="file"
            multiple
            class="visually-hidden"
            onChange={(e) => {
              void uploadAll([...(e.currentTarget.files ?? [])]);
              e.currentTarget.value = '';
            }}
          />
        </label>
        <button type="button" onClick={() => void togglePreview()} aria-pressed={preview !== null}>
          {preview !== null ? 'Edit' : 'Preview'}
        </button>
        <button type="submit">Send</button>
      </div>
    </form>
  );
}
