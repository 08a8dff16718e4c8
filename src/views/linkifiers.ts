// Linkifiers: GET and PATCH (reorder) /realm/linkifiers; POST /realm/filters; PATCH and DELETE /realm/filters/{filter_id}.
import type { RouteList } from '../http/router.js';
import { endpoint } from '../http/endpoint.js';
import { ApiError } from '../core/api-error.js';
import { vIntList, vStrList } from '../core/params.js';
import { IdList, Type, id, json, loose, str } from '../core/param-types.js';
import { doAddLinkifier, doRemoveLinkifier, doReorderLinkifiers, doUpdateLinkifier } from '../actions/linkifiers.js';
import { realmLinkifiers, type LinkifierInput } from '../lib/linkifiers.js';

const Linkifier = loose(Type.Object({ id: Type.Integer(), pattern: Type.String(), url_template: Type.String() }));
const filterId = { filter_id: id({ invalid: () => new ApiError('Linkifier not found.', 'BAD_REQUEST', 400) }) };
const linkifierParams = {
  pattern: str({ required: true }),
  url_template: str({ required: true }),
  example_input: str(),
  reverse_template: str(),
  alternative_url_templates: json(Type.Array(Type.String()), { validate: vStrList }),
};

function input(a: { pattern: string; url_template: string; example_input?: string; reverse_template?: string; alternative_url_templates?: string[] }): LinkifierInput {
  return {
    pattern: a.pattern,
    urlTemplate: a.url_template,
    exampleInput: a.example_input ?? null,
    reverseTemplate: a.reverse_template ?? null,
    alternativeUrlTemplates: a.alternative_url_templates ?? [],
  };
}

const list = endpoint({
  summary: 'Get linkifiers',
  response: Type.Object({ linkifiers: Type.Array(Linkifier) }),
  run: async (req) => ({ linkifiers: await req.app.store.read((tx) => realmLinkifiers(tx, req.realm.id)) }),
});

const add = endpoint({
  summary: 'Add a linkifier',
  params: linkifierParams,
  response: Type.Object({ id: Type.Integer() }),
  run: async (req, a) => ({ id: await doAddLinkifier(req.app, req.realm, req.user, input(a)) }),
});

const update = endpoint({
  summary: 'Update a linkifier',
  path: filterId,
  params: linkifierParams,
  response: Type.Object({}),
  run: async (req, a) => {
    await doUpdateLinkifier(req.app, req.realm, req.user, a.filter_id, input(a));
    return {};
  },
});

const remove = endpoint({
  summary: 'Remove a linkifier',
  path: filterId,
  response: Type.Object({}),
  run: async (req, a) => {
    await doRemoveLinkifier(req.app, req.realm, req.user, a.filter_id);
    return {};
  },
});

const reorder = endpoint({
  summary: 'Reorder linkifiers',
  params: { ordered_linkifier_ids: json(IdList, { required: true, validate: vIntList }) },
  response: Type.Object({}),
  run: async (req, a) => {
    await doReorderLinkifiers(req.app, req.realm, req.user, a.ordered_linkifier_ids);
    return {};
  },
});

export const routes: RouteList = [
  ['realm/linkifiers', { GET: list, PATCH: reorder }],
  ['realm/filters', { POST: add }],
  ['realm/filters/{filter_id:int}', { PATCH: update, DELETE: remove }],
];
