// Saved snippets: title and content rules, the API form, and a user's list.
import type { Selectable } from 'kysely';
import type { Tx } from '../../store/store.js';
import type { SavedSnippetTable } from '../../store/schema.js';
import { ApiError, badRequest } from '../../core/api-error.js';
import { MAX_MESSAGE_LENGTH } from '../../models/limits.js';

export const MAX_SNIPPET_TITLE_LENGTH = 200;

export type SnippetRow = Selectable<SavedSnippetTable>;

export const snippetDoesNotExist = () => new ApiError('Saved snippet does not exist.', 'BAD_REQUEST', 404);

export function checkSnippetTitle(title: string): string {
  if (title.includes('\0')) throw badRequest('Title must not contain null bytes', { var_name: 'title' });
  const t = title.trim();
  if (!t) throw badRequest('Title cannot be empty.');
  if ([...t].length > MAX_SNIPPET_TITLE_LENGTH) throw badRequest(`Title is too long (limit: ${MAX_SNIPPET_TITLE_LENGTH} characters)`, { var_name: 'title' });
  return t;
}

export function checkSnippetContent(content: string): string {
  if (content.includes('\0')) throw badRequest('Content must not contain null bytes', { var_name: 'content' });
  if (!content.trim()) throw badRequest('Content cannot be empty.');
  if ([...content].length > MAX_MESSAGE_LENGTH) throw badRequest(`Content is too long (limit: ${MAX_MESSAGE_LENGTH} characters)`, { var_name: 'content' });
  return content;
}

export function snippetDict(r: SnippetRow): Record<string, unknown> {
  return { id: r.id, title: r.title, content: r.content, date_created: r.date_created };
}

/** A user's snippets, oldest first. */
export async function userSnippets(tx: Tx, userId: number): Promise<Record<string, unknown>[]> {
  return (await tx.selectFrom('saved_snippets').selectAll().where('user_id', '=', userId).orderBy('id').execute()).map(snippetDict);
}
