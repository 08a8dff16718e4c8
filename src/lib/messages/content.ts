// Message content rules shared by sending and editing: trailing whitespace, emptiness, length.
import { badRequest } from '../../core/api-error.js';
import { MAX_MESSAGE_LENGTH } from '../../models/limits.js';

export function normalizeContent(raw: string): string {
  const content = raw.replace(/\r\n?/g, '\n').replace(/\0/g, '').trimEnd();
  if (!content.trim()) throw badRequest('Message must not be empty');
  if ([...content].length > MAX_MESSAGE_LENGTH) throw badRequest(`Message is too long (limit: ${MAX_MESSAGE_LENGTH} characters)`);
  return content;
}
