// POST /typing (composing a direct or channel message) and POST /messages/{message_id}/typing (editing one).
import type { RouteList } from '../http/router.js';
import { authed } from '../http/handlers.js';
import { badRequest } from '../core/api-error.js';
import { oneOf, toInt, vIntList } from '../core/params.js';
import { doTypingChannel, doTypingDirect, doTypingEditMessage, type TypingOp } from '../actions/typing.js';

const OPS: readonly TypingOp[] = ['start', 'stop'];
/** "private" was retired at the original's FL 215; "channel" is "stream" renamed. */
const TYPES = ['direct', 'stream', 'channel'] as const;

const setTyping = authed(async (req) => {
  const p = req.params;
  const type = oneOf(p.str('type') ?? 'direct', TYPES, 'type');
  const op = oneOf(p.reqStr('op'), OPS, 'op');
  // Each form ignores the other form's parameters; reading them keeps them out of ignored_parameters_unsupported.
  const toText = p.str('to');
  const streamIdText = p.str('stream_id');
  const topic = p.str('topic');
  if (type === 'direct') {
    if (toText === undefined) throw badRequest("Missing 'to' argument");
    let to: unknown;
    try {
      to = JSON.parse(toText);
    } catch {
      throw badRequest('Argument "to" is not valid JSON.', { var_name: 'to' });
    }
    await doTypingDirect(req.app, req.realm, req.user, vIntList(to, 'to'), op);
    return {};
  }
  if (streamIdText === undefined) throw badRequest('Missing channel ID');
  if (topic === undefined) throw badRequest('Missing topic');
  await doTypingChannel(req.app, req.realm, req.user, toInt(streamIdText, 'stream_id'), topic, op);
  return {};
});

const setEditTyping = authed(async (req) => {
  const op = oneOf(req.params.reqStr('op'), OPS, 'op');
  await doTypingEditMessage(req.app, req.realm, req.user, Number(req.pathParams.message_id), op);
  return {};
});

export const routes: RouteList = [
  ['typing', { POST: setTyping }],
  ['messages/{message_id:int}/typing', { POST: setEditTyping }],
];
