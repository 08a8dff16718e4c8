// Allowed email domains: GET and POST /realm/domains, PATCH and DELETE /realm/domains/{domain}.
import type { RouteList } from '../http/router.js';
import { endpoint } from '../http/endpoint.js';
import { Type, bool, str } from '../core/param-types.js';
import { realmDomainList } from '../lib/realm-domains.js';
import { doAddRealmDomain, doChangeRealmDomain, doRemoveRealmDomain } from '../actions/realm-domains.js';

const RealmDomain = Type.Object({ domain: Type.String(), allow_subdomains: Type.Boolean() });
const domainPath = { domain: str() };

const list = endpoint({
  summary: 'Get allowed domains',
  response: Type.Object({ domains: Type.Array(RealmDomain) }),
  run: async (req) => ({ domains: await req.app.store.read((tx) => realmDomainList(tx, req.realm.id)) }),
});

const add = endpoint({
  summary: 'Add an allowed domain',
  params: { domain: str({ required: true }), allow_subdomains: bool({ required: true }) },
  response: Type.Object({ new_domain: Type.Array(Type.Union([Type.Integer(), Type.String()])) }),
  run: async (req, a) => ({ new_domain: await doAddRealmDomain(req.app, req.realm, req.user, a.domain, a.allow_subdomains) }),
});

const change = endpoint({
  summary: 'Update an allowed domain',
  path: domainPath,
  params: { allow_subdomains: bool({ required: true }) },
  response: Type.Object({}),
  run: async (req, a) => {
    await doChangeRealmDomain(req.app, req.realm, req.user, a.domain, a.allow_subdomains);
    return {};
  },
});

const remove = endpoint({
  summary: 'Remove an allowed domain',
  path: domainPath,
  response: Type.Object({}),
  run: async (req, a) => {
    await doRemoveRealmDomain(req.app, req.realm, req.user, a.domain);
    return {};
  },
});

export const routes: RouteList = [
  ['realm/domains', { GET: list, POST: add }],
  ['realm/domains/{domain}', { PATCH: change, DELETE: remove }],
];
