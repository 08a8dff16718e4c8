// Unicode emoji names (the server's emoji table, loaded once when first needed) and how to show an emoji.
import { signal } from '@preact/signals';
import { serverInfo } from './store.js';

export interface EmojiEntry {
  name: string;
  code: string;
  aliases: string[];
}

export const emojiList = signal<EmojiEntry[]>([]);
let loading: Promise<void> | null = null;

export function loadEmoji(): Promise<void> {
  const url = serverInfo.value.emojiDataUrl;
  if (!url) return Promise.resolve();
  loading ??= fetch(new URL(url, location.href).pathname + new URL(url, location.href).search, { credentials: 'same-origin' })
    .then((r) => r.json())
    .then((data: { code_to_names: Record<string, string[]> }) => {
      emojiList.value = Object.entries(data.code_to_names).map(([code, names]) => ({ code, name: names[0], aliases: names }));
    })
    .catch(() => {
      loading = null;
    });
  return loading;
}

/** The character of a Unicode emoji code ("1f44d" or "1f468-200d-1f4bb"). */
export function emojiChar(code: string): string {
  try {
    return String.fromCodePoint(...code.split('-').map((c) => parseInt(c, 16)));
  } catch {
    return '';
  }
}

/** Emoji most people reach for, shown before searching. */
export const POPULAR = ['+1', 'tada', 'smile', 'heart', 'joy', 'thinking', 'eyes', 'check', 'rocket', 'fire', 'clap', 'pray'];

/**
 * The server marks a Unicode emoji as <span class="emoji emoji-1f389" title="tada">:tada:</span>
 * (clients draw it their own way); this shows the character, keeping the name as its label.
 */
export function showUnicodeEmoji(root: HTMLElement): void {
  for (const span of root.querySelectorAll<HTMLElement>('span.emoji')) {
    const code = [...span.classList].find((c) => c.startsWith('emoji-'))?.slice(6);
    const char = code && emojiChar(code);
    if (!char) continue;
    span.setAttribute('aria-label', span.title || span.textContent || '');
    span.textContent = char;
  }
}
