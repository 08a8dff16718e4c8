// Code playgrounds: POST /realm/playgrounds, DELETE /realm/playgrounds/{playground_id}.
import type { RouteList } from '../http/router.js';
import { endpoint } from '../http/endpoint.js';
import { badRequest } from '../core/api-error.js';
import { Type, id, str } from '../core/param-types.js';
import { doAddRealmPlayground, doRemoveRealmPlayground } from '../actions/realm-playgrounds.js';

const add = endpoint({
  summary: 'Add a code playground',
  params: { name: str({ required: true }), pygments_language: str({ required: true }), url_template: str({ required: true }) },
  response: Type.Object({ id: Type.Integer() }),
  run: async (req, a) => ({ id: await doAddRealmPlayground(req.app, req.realm, req.user, { name: a.name, pygmentsLanguage: a.pygments_language, urlTemplate: a.url_template }) }),
});

const remove = endpoint({
  summary: 'Remove a code playground',
  path: { playground_id: id({ invalid: () => badRequest('Invalid playground') }) },
  response: Type.Object({}),
  run: async (req, a) => {
    await doRemoveRealmPlayground(req.app, req.realm, req.user, a.playground_id);
    return {};
  },
});

export const routes: RouteList = [
  ['realm/playgrounds', { POST: add }],
  ['realm/playgrounds/{playground_id:int}', { DELETE: remove }],
];
