// Compose autocomplete for @people, #channels and :emoji:, chosen with the arrow keys and Enter or Tab.
import { useEffect, useState } from 'preact/hooks';
import { state } from '../store.js';
import { emojiChar, emojiList, loadEmoji } from '../emoji.js';

export interface Completion {
  start: number;
  end: number;
  items: { label: string; insert: string }[];
}

/** What the word before the caret completes to, if it starts with @, # or :. */
export function completionAt(text: string, caret: number): Completion | null {
  const before = text.slice(0, caret);
  const m = /(^|\s)([@#:])([^\s@#:*]{0,30})$/.exec(before);
  if (!m) return null;
  const [, , sigil, typed] = m;
  const q = typed.toLowerCase();
  const start = caret - typed.length - 1;
  const st = state.value!;
  let items: Completion['items'];
  if (sigil === '@') {
    items = Object.values(st.users)
      .filter((u) => u.full_name.toLowerCase().includes(q) || u.email.toLowerCase().startsWith(q))
      .slice(0, 8)
      .map((u) => ({ label: u.full_name, insert: `@**${u.full_name}**` }));
  } else if (sigil === '#') {
    items = Object.values(st.channels)
      .filter((c) => c.name.toLowerCase().includes(q))
      .slice(0, 8)
      .map((c) => ({ label: `#${c.name}`, insert: `#**${c.name}**` }));
  } else {
    if (q.length < 2) return null;
    void loadEmoji();
    items = emojiList.value
      .filter((e) => e.aliases.some((a) => a.startsWith(q)))
      .slice(0, 8)
      .map((e) => ({ label: `${emojiChar(e.code)} :${e.name}:`, insert: `:${e.name}:` }));
  }
  return { start, end: caret, items };
}

export function Autocomplete({ completion, onChoose, onClose }: { completion: Completion; onChoose: (text: string) => void; onClose: () => void }) {
  const [active, setActive] = useState(0);
  const items = completion.items;
  useEffect(() => setActive(0), [completion.start, items.length]);
  useEffect(() => {
    // Keys go to the text area; this listens for the ones that drive the list.
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'ArrowDown') setActive((a) => (a + 1) % items.length);
      else if (e.key === 'ArrowUp') setActive((a) => (a - 1 + items.length) % items.length);
      else if (e.key === 'Enter' || e.key === 'Tab') onChoose(items[active].insert);
      else if (e.key === 'Escape') onClose();
      else return;
      e.preventDefault();
    };
    document.addEventListener('keydown', onKey, true);
    return () => document.removeEventListener('keydown', onKey, true);
  }, [items, active]);
  return (
    <ul class="autocomplete" role="listbox" aria-label="Suggestions">
      {items.map((it, i) => (
        <li key={it.insert} role="option" aria-selected={i === active} onMouseDown={(e) => (e.preventDefault(), onChoose(it.insert))}>
          {it.label}
        </li>
      ))}
    </ul>
  );
}
