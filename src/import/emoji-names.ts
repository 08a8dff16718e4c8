// Emoji names Slack and Mattermost use that the original's name table spells differently: name → Unicode code.
import { unicodeCodeOfName, unicodeNameOfCode } from '../lib/emoji/unicode.js';

/** Slack and Mattermost follow the emoji-cheat-sheet names; these differ from the original's table. */
const SOURCE_NAMES: Record<string, string> = {
  thumbsup: '1f44d',
  thumbsdown: '1f44e',
  grin: '1f601',
  smile: '1f604',
  simple_smile: '1f642',
  white_check_mark: '2705',
  heavy_check_mark: '2714',
  slightly_smiling_face: '1f642',
  joy: '1f602',
  sob: '1f62d',
  sweat_smile: '1f605',
  satisfied: '1f606',
  heart_eyes: '1f60d',
  wink: '1f609',
  pray: '1f64f',
  clap: '1f44f',
  eyes: '1f440',
  fire: '1f525',
  raised_hands: '1f64c',
  thinking_face: '1f914',
  ok_hand: '1f44c',
  muscle: '1f4aa',
  wave: '1f44b',
  '100': '1f4af',
};

/** The Unicode emoji of a source system's name: its code and the name Parley knows it by, or null. */
export function sourceEmoji(name: string): { code: string; name: string } | null {
  const code = SOURCE_NAMES[name] ?? unicodeCodeOfName(name);
  if (!code) return null;
  return { code, name: unicodeCodeOfName(name) === code ? name : (unicodeNameOfCode(code) ?? name) };
}
