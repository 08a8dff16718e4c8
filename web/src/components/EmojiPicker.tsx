// Emoji picker with search over the server's emoji names.
import { useEffect, useRef, useState } from 'preact/hooks';
import { emojiChar, emojiList, loadEmoji, POPULAR } from '../emoji.js';

export function EmojiPicker({ onPick, onClose }: { onPick: (name: string, code: string) => void; onClose: () => void }) {
  const [query, setQuery] = useState('');
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => {
    void loadEmoji();
    input.current?.focus();
  }, []);
  const q = query.trim().toLowerCase().replace(/^:|:$/g, '');
  const all = emojiList.value;
  const shown = q ? all.filter((e) => e.aliases.some((a) => a.includes(q))).slice(0, 60) : POPULAR.map((n) => all.find((e) => e.aliases.includes(n))).filter((e) => !!e);
  return (
    <div
      class="picker"
      role="dialog"
      aria-label="Emoji picker"
      onKeyDown={(e) => {
        if (e.key === 'Escape') {
          e.stopPropagation();
          onClose();
        }
      }}
    >
      <input ref={input} type="search" aria-label="Search emoji" placeholder="Search emoji" value={query} onInput={(e) => setQuery(e.currentTarget.value)} />
      <div class="emoji-grid">
        {shown.map((e) => (
          <button key={e!.code} type="button" title={`:${e!.name}:`} aria-label={e!.name} onClick={() => onPick(e!.name, e!.code)}>
            {emojiChar(e!.code)}
          </button>
        ))}
        {!shown.length && <p>{all.length ? 'No emoji match.' : 'Loading…'}</p>}
      </div>
    </div>
  );
}
