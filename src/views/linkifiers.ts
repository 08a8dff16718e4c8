// Linkifiers: GET and PATCH (reorder) /realm/linkifiers; POST /realm/filters; PATCH and DELETE /realm/filters/{filter_id}.
import type { RouteList } from '../http/router.js';
import type { Params } from '../core/params.js';
import { authed } from '../http/handlers.js';
import { vIntList, vStrList } from '../core/params.js';
import { doAddLinkifier, doRemoveLinkifier, doReorderLinkifiers, doUpdateLinkifier } from '../actions/linkifiers.js';
import { realmLinkifiers, type LinkifierInput } from '../lib/linkifiers.js';

function input(p: Params): LinkifierInput {
  return {
    pattern: p.reqStr('pattern'),
    urlTemplate: p.reqStr('url_template'),
    exampleInput: p.str('example_input') ?? null,
    reverseTemplate: p.str('reverse_template') ?? null,
    alternativeUrlTemplates: p.json('alternative_url_templates', vStrList) ?? [],
  };
}

const list = authed(async (req) => ({ linkifiers: await req.app.store.read((tx) => realmLinkifiers(tx, req.realm.id)) }));
const add = authed(async (req) => ({ id: await doAddLinkifier(req.app, req.realm, req.user, input(req.params)) }));
const update = authed(async (req) => {
  await doUpdateLinkifier(req.app, req.realm, req.user, Number(req.pathParams.filter_id), input(req.params));
  return {};
});
const remove = authed(async (req) => {
  await doRemoveLinkifier(req.app, req.realm, req.user, Number(req.pathParams.filter_id));
  return {};
});
const reorder = authed(async (req) => {
  await doReorderLinkifiers(req.app, req.realm, req.user, req.params.reqJson('ordered_linkifier_ids', vIntList));
  return {};
});

export const routes: RouteList = [
  ['realm/linkifiers', { GET: list, PATCH: reorder }],
  ['realm/filters', { POST: add }],
  ['realm/filters/{filter_id:int}', { PATCH: update, DELETE: remove }],
];
