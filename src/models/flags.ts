// Per-recipient message flags: bit positions in user_messages.flags and their API names.
export const FLAG_BITS = {
  read: 1,
  starred: 2,
  collapsed: 4,
  mentioned: 8,
  stream_wildcard_mentioned: 16,
  topic_wildcard_mentioned: 32,
  has_alert_word: 64,
  historical: 128,
  /** Internal: marks direct messages so the partial index can find them; never shown to clients. */
  is_private: 256,
  /** Internal: an unread channel row no subscription floor covers (no subscription row), so the partial index finds it. */
  unfloored: 512,
} as const;
export type FlagName = keyof typeof FLAG_BITS;

/** Flags a client may change through POST /messages/flags. */
export const EDITABLE_FLAGS: readonly FlagName[] = ['read', 'starred', 'collapsed'];

const INTERNAL = new Set(['is_private', 'unfloored']);
const VISIBLE: [string, number][] = Object.entries(FLAG_BITS).filter(([n]) => !INTERNAL.has(n));

/** API flag names for a bit set, including the deprecated wildcard_mentioned (FL 224). */
export function flagNames(bits: number): string[] {
  const out: string[] = [];
  for (const [name, bit] of VISIBLE) if (bits & bit) out.push(name);
  if (bits & (FLAG_BITS.stream_wildcard_mentioned | FLAG_BITS.topic_wildcard_mentioned)) out.push('wildcard_mentioned');
  return out;
}
