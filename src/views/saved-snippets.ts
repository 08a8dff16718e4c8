// Saved snippets: GET and POST /saved_snippets, PATCH and DELETE /saved_snippets/{saved_snippet_id}.
import type { RouteList } from '../http/router.js';
import { authed } from '../http/handlers.js';
import { badRequest } from '../core/api-error.js';
import { isDbId } from '../lib/messages/access.js';
import { checkSnippetContent, checkSnippetTitle, snippetDoesNotExist, userSnippets } from '../lib/personal/snippets.js';
import { doCreateSnippet, doDeleteSnippet, doEditSnippet } from '../actions/saved-snippets.js';

function snippetIdOf(req: { pathParams: Record<string, string> }): number {
  const id = Number(req.pathParams.saved_snippet_id);
  if (!isDbId(id)) throw snippetDoesNotExist();
  return id;
}

const getSnippets = authed(async (req) => ({ saved_snippets: await req.app.store.read((tx) => userSnippets(tx, req.user.id)) }));

const createSnippet = authed(async (req) => {
  const title = checkSnippetTitle(req.params.reqStr('title'));
  const content = checkSnippetContent(req.params.reqStr('content'));
  return { saved_snippet_id: await doCreateSnippet(req.app, req.realm, req.user, title, content) };
});

const editSnippet = authed(async (req) => {
  const id = snippetIdOf(req);
  const title = req.params.str('title');
  const content = req.params.str('content');
  if (title === undefined && content === undefined) throw badRequest('At least one of title or content must be provided.');
  await doEditSnippet(req.app, req.realm, req.user, id, {
    ...(title !== undefined ? { title: checkSnippetTitle(title) } : {}),
    ...(content !== undefined ? { content: checkSnippetContent(content) } : {}),
  });
  return {};
});

const deleteSnippet = authed(async (req) => {
  await doDeleteSnippet(req.app, req.realm, req.user, snippetIdOf(req));
  return {};
});

export const routes: RouteList = [
  ['saved_snippets', { GET: getSnippets, POST: createSnippet }],
  ['saved_snippets/{saved_snippet_id:int}', { PATCH: editSnippet, DELETE: deleteSnippet }],
];
