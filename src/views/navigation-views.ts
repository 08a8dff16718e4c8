// Navigation views: GET and POST /navigation_views, PATCH and DELETE /navigation_views/{fragment}.
import type { RouteList } from '../http/router.js';
import { endpoint } from '../http/endpoint.js';
import { badRequest } from '../core/api-error.js';
import { Type, bool, loose, str } from '../core/param-types.js';
import { BUILT_IN_VIEW_FRAGMENTS, builtInNamed, checkFragment, checkViewName, userNavigationViews, viewDoesNotExist } from '../lib/personal/navigation-views.js';
import { doAddNavigationView, doRemoveNavigationView, doUpdateNavigationView } from '../actions/navigation-views.js';

/** The path's fragment; one that no view could have (a null byte) is simply not found. */
const fragmentPath = { fragment: str({ invalid: viewDoesNotExist }) };
const View = loose(Type.Object({ fragment: Type.String(), is_pinned: Type.Boolean(), name: Type.Union([Type.String(), Type.Null()]) }));
// checkFragment and checkViewName refuse NUL bytes with the original's texts.
const name = str({ allowNul: true });

const getViews = endpoint({
  summary: 'Get all navigation views',
  response: Type.Object({ navigation_views: Type.Array(View) }),
  run: async (req) => ({ navigation_views: await req.app.store.read((tx) => userNavigationViews(tx, req.user.id)) }),
});

const addView = endpoint({
  summary: 'Add a navigation view',
  params: { fragment: str({ required: true, allowNul: true }), is_pinned: bool({ required: true }), name },
  response: Type.Object({}),
  run: async (req, a) => {
    const fragment = checkFragment(a.fragment);
    if (a.name !== undefined && BUILT_IN_VIEW_FRAGMENTS.has(fragment)) throw builtInNamed();
    await doAddNavigationView(req.app, req.realm, req.user, fragment, a.is_pinned, a.name === undefined ? null : checkViewName(a.name));
    return {};
  },
});

const updateView = endpoint({
  summary: 'Update a navigation view',
  path: fragmentPath,
  params: { is_pinned: bool(), name },
  response: Type.Object({}),
  run: async (req, a) => {
    if (a.is_pinned === undefined && a.name === undefined) throw badRequest('At least one of is_pinned or name must be provided.');
    await doUpdateNavigationView(req.app, req.realm, req.user, a.fragment, {
      ...(a.is_pinned !== undefined ? { isPinned: a.is_pinned } : {}),
      ...(a.name !== undefined ? { name: checkViewName(a.name) } : {}),
    });
    return {};
  },
});

const removeView = endpoint({
  summary: 'Remove a navigation view',
  path: fragmentPath,
  response: Type.Object({}),
  run: async (req, a) => {
    await doRemoveNavigationView(req.app, req.realm, req.user, a.fragment);
    return {};
  },
});

export const routes: RouteList = [
  ['navigation_views', { GET: getViews, POST: addView }],
  // Fragments are URL hashes with slashes ("narrow/is/alerted"): the parameter takes the rest of the path.
  ['navigation_views/{fragment:path}', { PATCH: updateView, DELETE: removeView }],
];
