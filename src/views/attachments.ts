// A user's uploaded files: GET /attachments (with the organization's usage), DELETE /attachments/{id}.
import type { RouteList } from '../http/router.js';
import { endpoint } from '../http/endpoint.js';
import { Type, id, loose } from '../core/param-types.js';
import { doDeleteAttachment } from '../actions/attachments.js';
import { invalidAttachment, uploadSpaceUsed, userAttachments } from '../lib/attachments.js';

const Attachment = loose(
  Type.Object({ id: Type.Integer(), name: Type.String(), path_id: Type.String(), size: Type.Integer(), create_time: Type.Integer(), message_ids: Type.Array(Type.Integer()) }),
);

const list = endpoint({
  summary: 'Get attachments',
  response: Type.Object({ attachments: Type.Array(Attachment), upload_space_used: Type.Integer() }),
  run: (req) =>
    req.app.store.read(async (tx) => ({
      attachments: await userAttachments(tx, req.user.id),
      upload_space_used: await uploadSpaceUsed(tx, req.realm.id),
    })),
});

const remove = endpoint({
  summary: 'Delete an attachment',
  path: { attachment_id: id({ invalid: invalidAttachment }) },
  response: Type.Object({}),
  run: async (req, a) => {
    await doDeleteAttachment(req.app, req.realm, req.user, a.attachment_id);
    return {};
  },
});

export const routes: RouteList = [
  ['attachments', { GET: list }],
  ['attachments/{attachment_id:int}', { DELETE: remove }],
];
