// POST /register, GET /events (long-poll) and DELETE /events.
import type { RouteList } from '../http/router.js';
import { authed, optionalAuth, rateLimited } from '../http/handlers.js';
import { ApiError } from '../core/api-error.js';
import { vObject, vStrList } from '../core/params.js';
import { parseNarrow } from '../lib/narrow-parse.js';
import { includeSubscribersParam } from '../lib/streams/params.js';
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

/** Reads the register parameters (also accepted by GET /events for implicit registration). */
export function registerInput(req: ApiRequest, authenticated: boolean): RegisterInput {
  const p = req.params;
  const clientGravatarSent = p.has('client_gravatar');
  const clientGravatar = p.bool('client_gravatar', authenticated);
  const incSubs = includeSubscribersParam(p);
  if (!authenticated && clientGravatarSent && clientGravatar) throw new ApiError("Invalid 'client_gravatar' parameter for anonymous request", 'BAD_REQUEST', 400);
  if (!authenticated && incSubs === true) throw new ApiError("Invalid 'include_subscribers' parameter for anonymous request", 'BAD_REQUEST', 400);
  const idle = p.int('idle_queue_timeout');
  if (idle !== undefined && (idle < 1 || idle > 7 * 24 * 3600)) throw new ApiError('Invalid idle_queue_timeout', 'BAD_REQUEST', 400);
  const presenceDays = p.int('presence_history_limit_days');
  return {
    applyMarkdown: p.bool('apply_markdown', false),
    clientGravatar,
    includeSubscribers: incSubs,
    slimPresence: p.bool('slim_presence', false),
    presenceHistoryLimitDays: presenceDays ?? 14,
    eventTypes: p.json('event_types', vStrList) ?? null,
    fetchEventTypes: p.json('fetch_event_types', vStrList) ?? null,
    allPublicStreams: p.bool('all_public_streams', false),
    capabilities: p.json('client_capabilities', capabilities) ?? {},
    narrow: p.json('narrow', parseNarrow) ?? [],
    idleQueueTimeout: idle ?? null,
    clientName: req.clientName,
  };
}

const register = optionalAuth(async (req) => {
  const input = registerInput(req, req.user !== null);
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
});

const badQueue = (id: string) => new ApiError(`Bad event queue ID: ${id}`, 'BAD_EVENT_QUEUE_ID', 400, { queue_id: id });

function ownedQueue(req: AuthedRequest, id: string) {
  const q = req.app.queues.get(id);
  if (!q || q.opts.userId !== req.user.id) throw badQueue(id);
  return q;
}

const REGISTRATION_ONLY = ['event_types', 'apply_markdown', 'client_gravatar', 'all_public_streams', 'narrow', 'client_capabilities'];

/**
 * Not an async function, and no promise: a held long-poll keeps only its reply and an EventsAnswer
 * (thousands are held at once). Errors thrown before the poll reach the HTTP layer all the same.
 */
const getEvents = authed((req) => {
  const p = req.params;
  const queueId = p.str('queue_id');
  const lastEventId = p.int('last_event_id');
  const dontBlock = p.bool('dont_block', false);
  if (queueId === undefined) {
    const input = registerInput(req, true);
    const reply = req.replyLater();
    registerQueue(req.app, req.realm, req.user, input).then(
      ({ queue }) => listen(req.app.queues, queue, lastEventId, dontBlock, reply),
      (err: unknown) => reply.fail(err),
    );
    return LATER;
  }
  // Parameters meant for implicit registration are meaningless with an existing queue.
  for (const k of REGISTRATION_ONLY) p.str(k);
  const q = ownedQueue(req, queueId);
  listen(req.app.queues, q, lastEventId, dontBlock, req.replyLater());
  return LATER;
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

const deleteQueue = authed(async (req) => {
  const id = req.params.reqStr('queue_id');
  ownedQueue(req, id);
  req.app.queues.remove(id);
  return {};
});

export const routes: RouteList = [
  ['register', { POST: register }],
  // Long-polls are not counted, as the original's event server counts none: a client polls as fast as events come.
  ['events', { GET: rateLimited(getEvents, 'none'), DELETE: rateLimited(deleteQueue, 'none') }],
];
