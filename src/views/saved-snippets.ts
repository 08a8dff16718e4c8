// Saved snippets: GET and POST /saved_snippets, PATCH and DELETE /saved_snippets/{saved_snippet_id}.
import type { RouteList } from '../http/router.js';
import { endpoint } from '../http/endpoint.js';
import { badRequest } from '../core/api-error.js';
import { Type, id, loose, str } from '../core/param-types.js';
import { checkSnippetContent, checkSnippetTitle, snippetDoesNotExist, userSnippets } from '../lib/personal/snippets.js';
import { doCreateSnippet, doDeleteSnippet, doEditSnippet } from '../actions/saved-snippets.js';

const snippetId = { saved_snippet_id: id({ invalid: snippetDoesNotExist }) };
const Snippet = loose(Type.Object({ id: Type.Integer(), title: Type.String(), content: Type.String(), date_created: Type.Integer() }));
// Title and content are checked by checkSnippetTitle/Content, whose texts are the original's (NUL bytes included).
const title = str({ allowNul: true });
const content = str({ allowNul: true });

const getSnippets = endpoint({
  summary: 'Get all saved snippets',
  response: Type.Object({ saved_snippets: Type.Array(Snippet) }),
  run: async (req) => ({ saved_snippets: await req.app.store.read((tx) => userSnippets(tx, req.user.id)) }),
});

const createSnippet = endpoint({
  summary: 'Create a saved snippet',
  params: { title: str({ required: true, allowNul: true }), content: str({ required: true, allowNul: true }) },
  response: Type.Object({ saved_snippet_id: Type.Integer() }),
  run: async (req, a) => ({ saved_snippet_id: await doCreateSnippet(req.app, req.realm, req.user, checkSnippetTitle(a.title), checkSnippetContent(a.content)) }),
});

const editSnippet = endpoint({
  summary: 'Edit a saved snippet',
  path: snippetId,
  params: { title, content },
  response: Type.Object({}),
  run: async (req, a) => {
    if (a.title === undefined && a.content === undefined) throw badRequest('At least one of title or content must be provided.');
    await doEditSnippet(req.app, req.realm, req.user, a.saved_snippet_id, {
      ...(a.title !== undefined ? { title: checkSnippetTitle(a.title) } : {}),
      ...(a.content !== undefined ? { content: checkSnippetContent(a.content) } : {}),
    });
    return {};
  },
});

const deleteSnippet = endpoint({
  summary: 'Delete a saved snippet',
  path: snippetId,
  response: Type.Object({}),
  run: async (req, a) => {
    await doDeleteSnippet(req.app, req.realm, req.user, a.saved_snippet_id);
    return {};
  },
});

export const routes: RouteList = [
  ['saved_snippets', { GET: getSnippets, POST: createSnippet }],
  ['saved_snippets/{saved_snippet_id:int}', { PATCH: editSnippet, DELETE: deleteSnippet }],
];
