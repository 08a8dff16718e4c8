// Navigation views: add, update and remove a user's view configuration, with navigation_view events.
import type { AppContext } from '../context.js';
import type { Realm, User } from '../store/schema.js';
import { badRequest } from '../core/api-error.js';
import { BUILT_IN_VIEW_FRAGMENTS, builtInNamed, viewDict, viewDoesNotExist } from '../lib/personal/navigation-views.js';
import { writeWithEvents, to } from '../events/publish.js';

/** name is null for built-in fragments (which may not have one) and required for the others. */
export async function doAddNavigationView(app: AppContext, realm: Realm, user: User, fragment: string, isPinned: boolean, name: string | null): Promise<void> {
  const builtIn = BUILT_IN_VIEW_FRAGMENTS.has(fragment);
  if (builtIn && name !== null) throw builtInNamed();
  if (!builtIn && name === null) throw badRequest('Custom views must have a valid name');
  await writeWithEvents(app, realm.id, async (tx) => {
    // The unique (user_id, fragment) index settles concurrent adds of one fragment.
    const row = await tx
      .insertInto('navigation_views')
      .values({ user_id: user.id, fragment, is_pinned: isPinned ? 1 : 0, name })
      .onConflict((oc) => oc.columns(['user_id', 'fragment']).doNothing())
      .returningAll()
      .executeTakeFirst();
    if (!row) throw badRequest('Navigation view already exists.');
    return row;
  }, (result) => [to([user.id], { type: 'navigation_view', op: 'add', navigation_view: viewDict(result) })]);
}

/** Changes is_pinned and/or the name (custom views only); the event names only what changed. */
export async function doUpdateNavigationView(app: AppContext, realm: Realm, user: User, fragment: string, changes: { isPinned?: boolean; name?: string }): Promise<void> {
  await writeWithEvents(app, realm.id, async (tx) => {
    const row = await tx.selectFrom('navigation_views').selectAll().where('user_id', '=', user.id).where('fragment', '=', fragment).executeTakeFirst();
    if (!row) throw viewDoesNotExist();
    if (changes.name !== undefined && row.name === null) throw builtInNamed();
    const data: Record<string, unknown> = {};
    if (changes.isPinned !== undefined && (row.is_pinned === 1) !== changes.isPinned) data.is_pinned = changes.isPinned;
    if (changes.name !== undefined && changes.name !== row.name) data.name = changes.name;
    if (!Object.keys(data).length) return null;
    await tx
      .updateTable('navigation_views')
      .set({ ...(data.is_pinned !== undefined ? { is_pinned: data.is_pinned ? 1 : 0 } : {}), ...(data.name !== undefined ? { name: data.name as string } : {}) })
      .where('id', '=', row.id)
      .execute();
    return data;
  }, (result) => (result ? [to([user.id], { type: 'navigation_view', op: 'update', fragment, data: result })] : []));
}

export async function doRemoveNavigationView(app: AppContext, realm: Realm, user: User, fragment: string): Promise<void> {
  await writeWithEvents(app, realm.id, async (tx) => {
    const r = await tx.deleteFrom('navigation_views').where('user_id', '=', user.id).where('fragment', '=', fragment).executeTakeFirst();
    if (!Number(r.numDeletedRows)) throw viewDoesNotExist();
  }, () => [to([user.id], { type: 'navigation_view', op: 'remove', fragment })]);
}
