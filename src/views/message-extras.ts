// More message operations: GET /messages/matches_narrow, GET read_receipts and POST report of a message.
import type { RouteList } from '../http/router.js';
import { endpoint } from '../http/endpoint.js';
import { badRequest } from '../core/api-error.js';
import { vIntList } from '../core/params.js';
import { IdList, Type, id, json, str } from '../core/param-types.js';
import { parseNarrow } from '../lib/narrow-parse.js';
import { searchReady } from '../lib/messages/search-indexer.js';
import { matchesNarrow } from '../lib/messages/matches-narrow.js';
import { readReceipts } from '../lib/read-receipts.js';
import { doReportMessage } from '../actions/message-report.js';

const messageId = { message_id: id({ invalid: () => badRequest('Invalid message(s)') }) };
/** A narrow: a list of {operator, operand, negated} objects or [operator, operand] pairs (checked by parseNarrow). */
const Narrow = Type.Array(Type.Union([Type.Object({ operator: Type.String(), operand: Type.Unknown(), negated: Type.Optional(Type.Boolean()) }), Type.Array(Type.Unknown())]));

const matches = endpoint({
  summary: 'Check if messages match a narrow',
  params: {
    msg_ids: json(IdList, { required: true, validate: vIntList }),
    narrow: json(Narrow, { required: true, validate: parseNarrow }),
  },
  response: Type.Object({ messages: Type.Record(Type.String(), Type.Object({ match_content: Type.String(), match_subject: Type.String() })) }),
  run: async (req, a) => {
    await searchReady(req.app.search, a.narrow);
    return { messages: await req.app.store.read((tx) => matchesNarrow(tx, req.app.store.dialect, req.realm, req.user, a.narrow, a.msg_ids)) };
  },
});

const receipts = endpoint({
  summary: "Get a message's read receipts",
  path: messageId,
  response: Type.Object({ user_ids: Type.Array(Type.Integer()) }),
  run: async (req, a) => ({ user_ids: await req.app.store.read((tx) => readReceipts(tx, req.realm, req.user, a.message_id)) }),
});

const report = endpoint({
  summary: 'Report a message',
  path: messageId,
  params: {
    report_type: str({ required: true }),
    description: str({ default: '' }),
  },
  response: Type.Object({}),
  run: async (req, a) => {
    await doReportMessage(req.app, req.realm, req.user, { messageId: a.message_id, reportType: a.report_type, description: a.description });
    return {};
  },
});

export const routes: RouteList = [
  ['messages/matches_narrow', { GET: matches }],
  ['messages/{message_id:int}/read_receipts', { GET: receipts }],
  ['messages/{message_id:int}/report', { POST: report }],
];
