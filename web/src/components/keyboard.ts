// Keyboard navigation: j/k move between messages, r replies, c composes, / searches, Esc leaves a field.
import { useEffect } from 'preact/hooks';
import { currentFeedKey, messages, requestCompose, selectedId } from '../store.js';

function inField(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null;
  return !!el && (el.tagName === 'INPUT' || el.tagName === 'TEXTAREA' || el.tagName === 'SELECT' || el.isContentEditable);
}

export function useKeyboard(): void {
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.ctrlKey || e.metaKey || e.altKey) return;
      if (e.key === 'Escape') {
        if (inField(e.target)) (e.target as HTMLElement).blur();
        return;
      }
      if (inField(e.target)) return;
      const ids = messages.value.feeds[currentFeedKey.value]?.ids ?? [];
      const at = selectedId.value === null ? ids.length : ids.indexOf(selectedId.value);
      if (e.key === 'j' || e.key === 'k') {
        if (!ids.length) return;
        const next = e.key === 'j' ? Math.min(at + 1, ids.length - 1) : Math.max((at < 0 ? ids.length : at) - 1, 0);
        selectedId.value = ids[next];
        e.preventDefault();
      } else if (e.key === 'r' || e.key === 'c') {
        // Focused now, not after a render: the next key typed must land in the box.
        document.getElementById('compose-message')?.focus();
        if (e.key === 'r' && selectedId.value !== null) requestCompose('reply', selectedId.value);
        else requestCompose('focus');
        e.preventDefault();
      } else if (e.key === '/') {
        document.getElementById('search')?.focus();
        e.preventDefault();
      }
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, []);
}
