// Navigation views: which fragments are built in, the rules for fragments and names, and the API form.
import type { Selectable } from 'kysely';
import type { Tx } from '../../store/store.js';
import type { NavigationViewTable } from '../../store/schema.js';
import { ApiError, badRequest } from '../../core/api-error.js';

/** Views every client has; a user's row only overrides is_pinned, so they carry no name. */
export const BUILT_IN_VIEW_FRAGMENTS: ReadonlySet<string> = new Set([
  'inbox',
  'recent',
  'feed',
  'drafts',
  'scheduled',
  'reminders',
  'narrow/is/mentioned',
  'narrow/is/starred',
  'narrow/is/followed',
  'narrow/has/reaction/sender/me',
]);

export const MAX_FRAGMENT_LENGTH = 256;
export const MAX_VIEW_NAME_LENGTH = 100;

export type NavigationViewRow = Selectable<NavigationViewTable>;

export const viewDoesNotExist = () => new ApiError('Navigation view does not exist.', 'BAD_REQUEST', 404);
export const builtInNamed = () => badRequest('Built-in views cannot have a custom name');

export function checkFragment(fragment: string): string {
  if (fragment.includes('\0')) throw badRequest('fragment must not contain null bytes', { var_name: 'fragment' });
  const f = fragment.trim();
  if (!f) throw badRequest('fragment cannot be blank');
  if ([...f].length > MAX_FRAGMENT_LENGTH) throw badRequest(`fragment is too long (limit: ${MAX_FRAGMENT_LENGTH} characters)`, { var_name: 'fragment' });
  return f;
}

export function checkViewName(name: string): string {
  if (name.includes('\0')) throw badRequest('name must not contain null bytes', { var_name: 'name' });
  const n = name.trim();
  if (!n) throw badRequest('Custom views must have a valid name');
  if ([...n].length > MAX_VIEW_NAME_LENGTH) throw badRequest(`name is too long (limit: ${MAX_VIEW_NAME_LENGTH} characters)`, { var_name: 'name' });
  return n;
}

/** name is omitted for built-in views (stored null). */
export function viewDict(r: Pick<NavigationViewRow, 'fragment' | 'is_pinned' | 'name'>): Record<string, unknown> {
  return { fragment: r.fragment, is_pinned: r.is_pinned === 1, ...(r.name === null ? {} : { name: r.name }) };
}

/** A user's views in the order they were configured. */
export async function userNavigationViews(tx: Tx, userId: number): Promise<Record<string, unknown>[]> {
  return (await tx.selectFrom('navigation_views').selectAll().where('user_id', '=', userId).orderBy('id').execute()).map(viewDict);
}
