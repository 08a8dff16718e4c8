// Navigation views: GET and POST /navigation_views, PATCH and DELETE /navigation_views/{fragment}.
import type { RouteList } from '../http/router.js';
import { authed } from '../http/handlers.js';
import { badRequest } from '../core/api-error.js';
import { missing } from '../core/params.js';
import { BUILT_IN_VIEW_FRAGMENTS, builtInNamed, checkFragment, checkViewName, userNavigationViews, viewDoesNotExist } from '../lib/personal/navigation-views.js';
import { doAddNavigationView, doRemoveNavigationView, doUpdateNavigationView } from '../actions/navigation-views.js';

/** The path's fragment; one that no view could have (a null byte) is simply not found. */
function fragmentOf(req: { pathParams: Record<string, string> }): string {
  const f = req.pathParams.fragment;
  if (f.includes('\0')) throw viewDoesNotExist();
  return f;
}

const getViews = authed(async (req) => ({ navigation_views: await req.app.store.read((tx) => userNavigationViews(tx, req.user.id)) }));

const addView = authed(async (req) => {
  const p = req.params;
  const fragment = checkFragment(p.reqStr('fragment'));
  const isPinned = p.optBool('is_pinned');
  if (isPinned === undefined) throw missing('is_pinned');
  const name = p.str('name');
  if (name !== undefined && BUILT_IN_VIEW_FRAGMENTS.has(fragment)) throw builtInNamed();
  await doAddNavigationView(req.app, req.realm, req.user, fragment, isPinned, name === undefined ? null : checkViewName(name));
  return {};
});

const updateView = authed(async (req) => {
  const p = req.params;
  const isPinned = p.optBool('is_pinned');
  const name = p.str('name');
  if (isPinned === undefined && name === undefined) throw badRequest('At least one of is_pinned or name must be provided.');
  await doUpdateNavigationView(req.app, req.realm, req.user, fragmentOf(req), {
    ...(isPinned !== undefined ? { isPinned } : {}),
    ...(name !== undefined ? { name: checkViewName(name) } : {}),
  });
  return {};
});

const removeView = authed(async (req) => {
  await doRemoveNavigationView(req.app, req.realm, req.user, fragmentOf(req));
  return {};
});

export const routes: RouteList = [
  ['navigation_views', { GET: getViews, POST: addView }],
  // Fragments are URL hashes with slashes ("narrow/is/alerted"): the parameter takes the rest of the path.
  ['navigation_views/{fragment:path}', { PATCH: updateView, DELETE: removeView }],
];
