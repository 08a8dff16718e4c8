// Drafts: GET and POST /drafts, PATCH and DELETE /drafts/{draft_id}.
import type { RouteList } from '../http/router.js';
import { authed } from '../http/handlers.js';
import { invalidParam } from '../core/params.js';
import { isDbId } from '../lib/messages/access.js';
import { checkDraftsEnabled, draftDoesNotExist, userDrafts, vDraft } from '../lib/personal/drafts.js';
import { doCreateDrafts, doDeleteDraft, doEditDraft } from '../actions/drafts.js';

function draftIdOf(req: { pathParams: Record<string, string> }): number {
  const id = Number(req.pathParams.draft_id);
  if (!isDbId(id)) throw draftDoesNotExist();
  return id;
}

const getDrafts = authed(async (req) => {
  const drafts = await req.app.store.read(async (tx) => {
    await checkDraftsEnabled(tx, req.user.id, null);
    return userDrafts(tx, req.user.id);
  });
  return { count: drafts.length, drafts };
});

const createDrafts = authed(async (req) => {
  const drafts = req.params.reqJson('drafts', (v, name) => {
    if (!Array.isArray(v)) throw invalidParam(`${name} is not a list`, name);
    return v.map((d, i) => vDraft(d, `${name}[${i}]`));
  });
  return { ids: await doCreateDrafts(req.app, req.realm, req.user, drafts) };
});

const editDraft = authed(async (req) => {
  const id = draftIdOf(req);
  const draft = req.params.reqJson('draft', vDraft);
  await doEditDraft(req.app, req.realm, req.user, id, draft);
  return {};
});

const deleteDraft = authed(async (req) => {
  await doDeleteDraft(req.app, req.realm, req.user, draftIdOf(req));
  return {};
});

export const routes: RouteList = [
  ['drafts', { GET: getDrafts, POST: createDrafts }],
  ['drafts/{draft_id:int}', { PATCH: editDraft, DELETE: deleteDraft }],
];
