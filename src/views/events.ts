// POST /register, GET /events (long-poll) and DELETE /events.
import type { RouteList } from '../http/router.js';
import { rateLimited } from '../http/handlers.js';
import { endpoint, paramDecoder } from '../http/endpoint.js';
import { Type, bool, int, json, loose, str, type ParamDecl, type ParamValues } from '../core/param-types.js';
import { ApiError } from '../core/api-error.js';
import { vObject, vStrList } from '../core/params.js';
import { parseNarrow } from '../lib/narrow-parse.js';
import { readState, registerQueue, type RegisterInput } from '../events/register.js';
import { LATER, RawResponse, type ApiRequest, type AuthedRequest, type CloseWatcher, type Reply } from '../http/types.js';
import type { QueueRegistry } from '../events/registry.js';
import type { ClientQueue, PollListener, PollOwner, QueuedEvent } from '../events/queue.js';
import { eventsJson } from '../events/transform.js';
import { realmSettings } from '../lib/realm-settings.js';

function capabilities(value: unknown, name: string): Record<string, boolean> {
  const o = vObject(value, name);
  const out: Record<string, boolean> = {};
  for (const [k, v] of Object.entries(o)) {
    if (typeof v !== 'boolean') throw new ApiError(`${name}["${k}"] is not a boolean`, 'BAD_REQUEST', 400);
    out[k] = v;
  }
  return out;
}

/** include_subscribers: true, false or "partial", plain or JSON-quoted. */
const includeSubscribers: ParamDecl<boolean | 'partial'> & { required: false; hasDefault: true } = {
  schema: Type.Union([Type.Boolean(), Type.Literal('partial')], { default: false }),
  json: false,
  required: false,
  hasDefault: true,
  default: false,
  decode: (text, name) => {
    const t = text.trim().toLowerCase().replace(/^"(.*)"$/, '$1');
    if (t === 'true') return true;
    if (t === 'false') return false;
    if (t === 'partial') return 'partial';
    throw new ApiError('Invalid include_subscribers', 'BAD_REQUEST', 400, { var_name: name });
  },
};

/** A narrow: {operator, operand, negated} objects or [operator, operand] pairs (checked by parseNarrow). */
const Narrow = Type.Array(Type.Union([Type.Object({ operator: Type.String(), operand: Type.Unknown(), negated: Type.Optional(Type.Boolean()) }), Type.Array(Type.Unknown())]));

/** The register parameters, in the order they are checked (GET /events takes them too, to register implicitly). */
const registerParams = {
  // Defaults to true for a user, false for a spectator (who may not ask for it).
  client_gravatar: bool(),
  include_subscribers: includeSubscribers,
  idle_queue_timeout: int({ min: 1, max: 7 * 24 * 3600, invalid: () => new ApiError('Invalid idle_queue_timeout', 'BAD_REQUEST', 400) }),
  presence_history_limit_days: int({ default: 14 }),
  apply_markdown: bool({ default: false }),
  slim_presence: bool({ default: false }),
  event_types: json(Type.Array(Type.String()), { validate: vStrList }),
  fetch_event_types: json(Type.Array(Type.String()), { validate: vStrList }),
  all_public_streams: bool({ default: false }),
  client_capabilities: json(Type.Record(Type.String(), Type.Boolean()), { validate: capabilities }),
  narrow: json(Narrow, { validate: parseNarrow }),
};
type RegisterArgs = ParamValues<typeof registerParams>;
const decodeRegisterParams = paramDecoder({}, registerParams);

function registerInput(req: ApiRequest, a: RegisterArgs, authenticated: boolean): RegisterInput {
  if (!authenticated && a.client_gravatar === true) throw new ApiError("Invalid 'client_gravatar' parameter for anonymous request", 'BAD_REQUEST', 400);
  if (!authenticated && a.include_subscribers === true) throw new ApiError("Invalid 'include_subscribers' parameter for anonymous request", 'BAD_REQUEST', 400);
  return {
    applyMarkdown: a.apply_markdown,
    clientGravatar: a.client_gravatar ?? authenticated,
    includeSubscribers: a.include_subscribers,
    slimPresence: a.slim_presence,
    presenceHistoryLimitDays: a.presence_history_limit_days,
    eventTypes: a.event_types ?? null,
    fetchEventTypes: a.fetch_event_types ?? null,
    allPublicStreams: a.all_public_streams,
    capabilities: a.client_capabilities ?? {},
    narrow: a.narrow ?? [],
    idleQueueTimeout: a.idle_queue_timeout ?? null,
    clientName: req.clientName,
  };
}

/** The register answer: the state asked for (fields by fetch_event_types), with the queue to poll. */
const RegisterState = loose(
  Type.Object({
    queue_id: Type.Union([Type.String(), Type.Null()]),
    last_event_id: Type.Optional(Type.Integer()),
    zulip_feature_level: Type.Integer(),
    zulip_version: Type.String(),
    zulip_merge_base: Type.String(),
    service_feature_level: Type.Integer(),
    service_version: Type.String(),
    service_merge_base: Type.String(),
  }),
);

const register = endpoint({
  summary: 'Register an event queue',
  auth: 'optional',
  params: registerParams,
  response: RegisterState,
  run: async (req, a) => {
    const input = registerInput(req, a, req.user !== null);
    if (!req.user) {
      if (realmSettings(req.realm).enable_spectator_access !== true) {
        throw new ApiError('Not logged in: API authentication or user session required', 'UNAUTHORIZED', 401);
      }
      // Spectators get state but no queue: they cannot receive events.
      const state = await readState(req.app, req.realm, null, input);
      return { ...state, queue_id: null };
    }
    const { state } = await registerQueue(req.app, req.realm, req.user, input);
    return state;
  },
});

const badQueue = (id: string) => new ApiError(`Bad event queue ID: ${id}`, 'BAD_EVENT_QUEUE_ID', 400, { queue_id: id });

function ownedQueue(req: AuthedRequest, id: string) {
  const q = req.app.queues.get(id);
  if (!q || q.opts.userId !== req.user.id) throw badQueue(id);
  return q;
}

/** The queue, from this node's memory or, registered on another node or before a restart, from the database. */
async function loadOwnedQueue(req: AuthedRequest, id: string) {
  const q = await req.app.queues.adopt(id);
  if (!q || q.opts.userId !== req.user.id) throw badQueue(id);
  return q;
}

const REGISTRATION_ONLY = ['event_types', 'apply_markdown', 'client_gravatar', 'all_public_streams', 'narrow', 'client_capabilities'];

/**
 * Not an async function, and no promise: a held long-poll keeps only its reply and an EventsAnswer
 * (thousands are held at once). Errors thrown before the poll reach the HTTP layer all the same.
 */
const getEvents = endpoint({
  summary: 'Get events from an event queue',
  params: {
    queue_id: str({ description: 'Absent: a queue is registered first, with the register parameters.' }),
    last_event_id: int(),
    dont_block: bool({ default: false }),
  },
  response: Type.Object({ events: Type.Array(loose(Type.Object({ id: Type.Integer(), type: Type.String() }))), queue_id: Type.String() }),
  run: (req, a) => {
    if (a.queue_id === undefined) {
      const input = registerInput(req, decodeRegisterParams(req), true);
      const reply = req.replyLater();
      registerQueue(req.app, req.realm, req.user, input).then(
        ({ queue }) => listen(req.app.queues, queue, a.last_event_id, a.dont_block, reply),
        (err: unknown) => reply.fail(err),
      );
      return LATER;
    }
    // Parameters meant for implicit registration are meaningless with an existing queue.
    for (const k of REGISTRATION_ONLY) req.params.str(k);
    if (req.app.queues.get(a.queue_id)) {
      listen(req.app.queues, ownedQueue(req, a.queue_id), a.last_event_id, a.dont_block, req.replyLater());
      return LATER;
    }
    // Not in this node's memory: any node serves any queue (a round-robin balancer in front).
    const reply = req.replyLater();
    const { last_event_id: lastEventId, dont_block: dontBlock } = a;
    loadOwnedQueue(req, a.queue_id).then(
      (q) => listen(req.app.queues, q, lastEventId, dontBlock, reply),
      (err: unknown) => reply.fail(err),
    );
    return LATER;
  },
});

function listen(queues: QueueRegistry, q: ClientQueue, lastEventId: number | undefined, dontBlock: boolean, reply: Reply): void {
  try {
    queues.listen(q, lastEventId, dontBlock, new EventsAnswer(reply, q));
  } catch (err) {
    reply.fail(err);
  }
}

/** A long-poll waiting on its queue: answers with the events envelope. */
class EventsAnswer implements PollListener, CloseWatcher {
  /** Told when the connection closes, once the poll is held (onClose). */
  private owner: PollOwner | null = null;

  constructor(
    private readonly reply: Reply,
    /** Its queue (whose own ID string the envelope carries: the request's copy would keep the request's head alive). */
    private readonly queue: ClientQueue,
  ) {}

  get aborted(): boolean {
    return this.reply.aborted;
  }

  get pacedReads(): boolean {
    return this.reply.pacedReads;
  }

  onClose(_q: ClientQueue, owner: PollOwner): void {
    this.owner = owner;
    this.reply.onClose(this);
  }

  closed(): void {
    this.owner?.pollClosed(this.queue, this);
  }

  deliver(events: QueuedEvent[]): void {
    // The client polls again as soon as it reads this: that next poll waits while other answers go out.
    this.reply.holdNextRequest();
    try {
      // The same envelope the server would build, from events serialized once per shared message variant.
      const ignored = this.reply.ignored;
      const tail = ignored.length ? `,"ignored_parameters_unsupported":${JSON.stringify(ignored)}` : '';
      this.reply.send(new RawResponse(200, `{"result":"success","msg":"","events":${eventsJson(events)},"queue_id":${JSON.stringify(this.queue.id)}${tail}}`, JSON_HEADERS));
    } catch (err) {
      this.reply.fail(err);
    }
  }
}

const JSON_HEADERS: Record<string, string> = Object.freeze({ 'content-type': 'application/json' });

const deleteQueue = endpoint({
  summary: 'Delete an event queue',
  params: { queue_id: str({ required: true }) },
  response: Type.Object({}),
  run: async (req, a) => {
    await loadOwnedQueue(req, a.queue_id);
    await req.app.queues.delete(a.queue_id);
    req.app.bus.publishControl({ type: 'queue_deleted', queueId: a.queue_id });
    return {};
  },
});

export const routes: RouteList = [
  ['register', { POST: register }],
  // Long-polls are not counted, as the original's event server counts none: a client polls as fast as events come.
  ['events', { GET: rateLimited(getEvents, 'none'), DELETE: rateLimited(deleteQueue, 'none') }],
];
