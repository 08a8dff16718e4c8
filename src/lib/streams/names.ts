// Channel name and description rules, with the original server's error texts.
import { badRequest } from '../../core/api-error.js';
import { MAX_STREAM_DESCRIPTION_LENGTH, MAX_STREAM_NAME_LENGTH } from '../../models/limits.js';
import { renderContextFrom, renderMessage } from '../markdown/index.js';

// Control characters (C0, DEL, C1) and unassigned/noncharacter code points cannot be part of a name.
const BAD_CHAR = /[\u0000-\u001f\u007f-\u009f\ufdd0-\ufdef\ufffe\uffff]/u;

/** Validates a channel name and returns it trimmed. */
export function checkStreamName(raw: string): string {
  const name = raw.trim();
  if (!name) throw badRequest("Channel name can't be empty.");
  if ([...name].length > MAX_STREAM_NAME_LENGTH) throw badRequest(`Channel name too long (limit: ${MAX_STREAM_NAME_LENGTH} characters).`);
  const chars = [...name];
  for (let i = 0; i < chars.length; i++) {
    if (BAD_CHAR.test(chars[i])) throw badRequest(`Invalid character in channel name, at position ${i + 1}.`);
  }
  return name;
}

/** Validates a channel description; newlines become spaces, as descriptions are one paragraph. */
export function checkStreamDescription(raw: string): string {
  const d = raw.replace(/\r?\n/g, ' ').trim();
  if ([...d].length > MAX_STREAM_DESCRIPTION_LENGTH) {
    throw badRequest(`Channel description too long (limit: ${MAX_STREAM_DESCRIPTION_LENGTH} characters).`);
  }
  return d;
}

/** A channel description in the message Markdown flavor (no one is notified of mentions in it). */
export function renderStreamDescription(description: string): string {
  if (!description) return '';
  return renderMessage(description, renderContextFrom([])).html;
}
