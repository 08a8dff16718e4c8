// Drafts: GET and POST /drafts, PATCH and DELETE /drafts/{draft_id}.
import type { RouteList } from '../http/router.js';
import { endpoint } from '../http/endpoint.js';
import { invalidParam } from '../core/params.js';
import { INT32_MAX, Type, id, json, loose } from '../core/param-types.js';
import { checkDraftsEnabled, draftDoesNotExist, userDrafts, vDraft } from '../lib/personal/drafts.js';
import { doCreateDrafts, doDeleteDraft, doEditDraft } from '../actions/drafts.js';

/** A draft as the client sends it (the server gives it an ID). */
const DraftInput = Type.Object({
  type: Type.Union([Type.Literal(''), Type.Literal('stream'), Type.Literal('private')]),
  to: Type.Array(Type.Integer({ minimum: 0, maximum: INT32_MAX })),
  topic: Type.String(),
  content: Type.String(),
  timestamp: Type.Optional(Type.Union([Type.Number({ minimum: 0, maximum: INT32_MAX + 1 }), Type.Null()])),
});
const Draft = Type.Composite([Type.Object({ id: Type.Integer() }), DraftInput]);
const draftId = { draft_id: id({ invalid: draftDoesNotExist }) };

const getDrafts = endpoint({
  summary: 'Get drafts',
  response: Type.Object({ count: Type.Integer(), drafts: Type.Array(loose(Draft)) }),
  run: async (req) => {
    const drafts = await req.app.store.read(async (tx) => {
      await checkDraftsEnabled(tx, req.user.id, null);
      return userDrafts(tx, req.user.id);
    });
    return { count: drafts.length, drafts };
  },
});

const createDrafts = endpoint({
  summary: 'Create drafts',
  params: {
    drafts: json(Type.Array(DraftInput), {
      required: true,
      validate: (v, name) => {
        if (!Array.isArray(v)) throw invalidParam(`${name} is not a list`, name);
        return v.map((d, i) => vDraft(d, `${name}[${i}]`));
      },
    }),
  },
  response: Type.Object({ ids: Type.Array(Type.Integer()) }),
  run: async (req, a) => ({ ids: await doCreateDrafts(req.app, req.realm, req.user, a.drafts) }),
});

const editDraft = endpoint({
  summary: 'Edit a draft',
  path: draftId,
  params: { draft: json(DraftInput, { required: true, validate: vDraft }) },
  response: Type.Object({}),
  run: async (req, a) => {
    await doEditDraft(req.app, req.realm, req.user, a.draft_id, a.draft);
    return {};
  },
});

const deleteDraft = endpoint({
  summary: 'Delete a draft',
  path: draftId,
  response: Type.Object({}),
  run: async (req, a) => {
    await doDeleteDraft(req.app, req.realm, req.user, a.draft_id);
    return {};
  },
});

export const routes: RouteList = [
  ['drafts', { GET: getDrafts, POST: createDrafts }],
  ['drafts/{draft_id:int}', { PATCH: editDraft, DELETE: deleteDraft }],
];
