// Channel folders: POST /channel_folders/create, GET and PATCH (reorder) /channel_folders, PATCH /channel_folders/{id}.
import type { RouteList } from '../http/router.js';
import { endpoint } from '../http/endpoint.js';
import { badRequest } from '../core/api-error.js';
import { vIntList } from '../core/params.js';
import { IdList, Type, bool, id, json, loose, str } from '../core/param-types.js';
import { invalidFolder, presentFolder, realmFolders } from '../lib/channel-folders.js';
import { doCreateChannelFolder, doReorderChannelFolders, doUpdateChannelFolder } from '../actions/channel-folders.js';

const Folder = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  description: Type.String(),
  rendered_description: Type.String(),
  order: Type.Integer(),
  date_created: Type.Integer(),
  creator_id: Type.Union([Type.Integer(), Type.Null()]),
  is_archived: Type.Boolean(),
});

const create = endpoint({
  summary: 'Create a channel folder',
  params: { name: str({ required: true }), description: str({ default: '' }) },
  response: Type.Object({ channel_folder_id: Type.Integer() }),
  run: async (req, a) => ({ channel_folder_id: await doCreateChannelFolder(req.app, req.realm, req.user, a) }),
});

const list = endpoint({
  summary: 'Get channel folders',
  params: { include_archived: bool({ default: false }) },
  response: Type.Object({ channel_folders: Type.Array(loose(Folder)) }),
  run: async (req, a) => {
    const folders = await req.app.store.read((tx) => realmFolders(tx, req.realm.id, { includeArchived: a.include_archived }));
    return { channel_folders: folders.map(presentFolder) };
  },
});

const reorder = endpoint({
  summary: 'Reorder channel folders',
  params: { order: json(IdList, { required: true, validate: vIntList }) },
  response: Type.Object({}),
  run: async (req, a) => {
    await doReorderChannelFolders(req.app, req.realm, req.user, a.order);
    return {};
  },
});

const update = endpoint({
  summary: 'Update a channel folder',
  path: { channel_folder_id: id({ invalid: invalidFolder }) },
  params: { name: str(), description: str(), is_archived: bool() },
  response: Type.Object({}),
  run: async (req, a) => {
    if (a.name === undefined && a.description === undefined && a.is_archived === undefined) throw badRequest('No new data supplied');
    await doUpdateChannelFolder(req.app, req.realm, req.user, a.channel_folder_id, { name: a.name, description: a.description, isArchived: a.is_archived });
    return {};
  },
});

export const routes: RouteList = [
  ['channel_folders/create', { POST: create }],
  ['channel_folders', { GET: list, PATCH: reorder }],
  ['channel_folders/{channel_folder_id:int}', { PATCH: update }],
];
