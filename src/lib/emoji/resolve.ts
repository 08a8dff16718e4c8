// Validates a reaction's (emoji_name, emoji_code, reaction_type) the way clients send it.
import { ApiError, badRequest } from '../../core/api-error.js';
import type { Tx } from '../../store/store.js';
import { isUnicodeCode, unicodeCodeOfName } from './unicode.js';

export const REACTION_TYPES = ['unicode_emoji', 'realm_emoji', 'service_extra_emoji'] as const;
export type ReactionType = (typeof REACTION_TYPES)[number];

/** Built-in non-Unicode emoji; the code is the name. "zulip" is kept so the original's clients work. */
export const SERVICE_EXTRA_EMOJI = new Set(['parley', 'zulip']);

export interface EmojiRef {
  emojiName: string;
  emojiCode: string;
  reactionType: ReactionType;
}

/** The original's spelling of service_extra_emoji is accepted on input. */
export function parseReactionType(value: string | undefined): ReactionType | undefined {
  if (value === undefined) return undefined;
  if (value === 'zulip_extra_emoji') return 'service_extra_emoji';
  if ((REACTION_TYPES as readonly string[]).includes(value)) return value as ReactionType;
  throw badRequest('Invalid reaction_type');
}

/** The organization's custom emoji as reactions need them: code (the emoji ID) → name and state. */
export type CustomEmoji = Map<string, { name: string; deactivated: boolean }>;

export async function loadCustomEmoji(tx: Tx, realmId: number): Promise<CustomEmoji> {
  const rows = await tx.selectFrom('realm_emoji').select(['id', 'name', 'deactivated']).where('realm_id', '=', realmId).execute();
  return new Map(rows.map((r) => [String(r.id), { name: r.name, deactivated: r.deactivated === 1 }]));
}

/**
 * What a bare name means: an active custom emoji (they shadow built-in names, as in the original),
 * else a built-in extra emoji, else a Unicode emoji; null when unknown.
 */
export function emojiByName(name: string, custom?: CustomEmoji): EmojiRef | null {
  for (const [code, e] of custom ?? []) if (e.name === name && !e.deactivated) return { emojiName: name, emojiCode: code, reactionType: 'realm_emoji' };
  if (SERVICE_EXTRA_EMOJI.has(name)) return { emojiName: name, emojiCode: name, reactionType: 'service_extra_emoji' };
  const code = unicodeCodeOfName(name);
  return code ? { emojiName: name, emojiCode: code, reactionType: 'unicode_emoji' } : null;
}

/** For adding a reaction: emoji_name is required; emoji_code and reaction_type narrow it down. */
export function resolveEmojiForAdd(name: string, code: string | undefined, type: ReactionType | undefined, custom?: CustomEmoji): EmojiRef {
  if (code === undefined) {
    const byName = emojiByName(name, custom);
    if (!byName || (type && byName.reactionType !== type)) throw badRequest(`Emoji '${name}' does not exist`);
    return byName;
  }
  const t = type ?? 'unicode_emoji';
  checkCode(code, t, custom);
  if (t === 'realm_emoji') {
    // The original's checks and texts: the ID must name this emoji, and a deactivated one takes no new reactions.
    const e = custom!.get(code)!;
    if (e.name !== name) throw badRequest('Invalid custom emoji name.');
    if (e.deactivated) throw badRequest('This custom emoji has been deactivated.');
  }
  // As in the original, the name must be one of this code's names (src/lib/emoji/names.json).
  if (t === 'unicode_emoji' && unicodeCodeOfName(name) !== code) throw badRequest('Invalid emoji name.');
  if (t === 'service_extra_emoji' && name !== code) throw badRequest('Invalid emoji name.');
  return { emojiName: name, emojiCode: code, reactionType: t };
}

/** For removing: the code (with its type) identifies the reaction; else the name does. */
export function resolveEmojiForRemove(
  name: string | undefined,
  code: string | undefined,
  type: ReactionType | undefined,
  custom?: CustomEmoji,
): { emojiCode: string; reactionType: ReactionType } {
  if (code !== undefined) {
    const t = type ?? 'unicode_emoji';
    // Reactions with an emoji deactivated since stay removable: only the code's existence is checked.
    checkCode(code, t, custom);
    return { emojiCode: code, reactionType: t };
  }
  if (name === undefined) throw badRequest('At least one of the following arguments must be present: emoji_name, emoji_code');
  const byName = emojiByName(name, custom);
  if (!byName) throw badRequest(`Emoji '${name}' does not exist`);
  return { emojiCode: byName.emojiCode, reactionType: type ?? byName.reactionType };
}

function checkCode(code: string, type: ReactionType, custom: CustomEmoji | undefined): void {
  if (type === 'unicode_emoji' && !isUnicodeCode(code)) throw badRequest('Invalid emoji code');
  if (type === 'service_extra_emoji' && !SERVICE_EXTRA_EMOJI.has(code)) throw badRequest('Invalid emoji code');
  // A custom emoji's code is its ID within the organization.
  if (type === 'realm_emoji' && !custom?.has(code)) throw new ApiError('Invalid custom emoji.', 'BAD_REQUEST', 400);
}
