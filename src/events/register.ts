// POST /register's core: create the queue, read the state in one snapshot, complete the queue with it.
import type { AppContext } from '../context.js';
import type { Realm, User } from '../store/schema.js';
import type { ReadSnapshot } from '../store/store.js';
import { STATE_FETCHERS } from '../lib/state/index.js';
import type { StateOptions } from '../lib/state/context.js';
import { emptyTopicDisplayName } from '../lib/realm-settings.js';
import { withJsonText } from '../core/json-text.js';
import {
  EMPTY_TOPIC_DISPLAY_NAME,
  FEATURE_LEVEL,
  LONGPOLL_TIMEOUT_SECS,
  MAX_MESSAGE_LENGTH,
  MAX_STREAM_DESCRIPTION_LENGTH,
  MAX_STREAM_NAME_LENGTH,
  MAX_TOPIC_LENGTH,
  SERVICE_VERSION,
  TYPING_STARTED_EXPIRY_MS,
  TYPING_STARTED_WAIT_MS,
  TYPING_STOPPED_WAIT_MS,
} from '../models/limits.js';
import type { NarrowTerm } from './narrow-filter.js';
import type { ClientQueue } from './queue.js';

export interface RegisterInput extends StateOptions {
  eventTypes: string[] | null;
  fetchEventTypes: string[] | null;
  narrow: NarrowTerm[];
  idleQueueTimeout: number | null;
  clientName: string;
}

/** Fields every register response has, whatever was fetched. */
export function serverInfo(): Record<string, unknown> {
  return {
    zulip_feature_level: FEATURE_LEVEL,
    zulip_version: SERVICE_VERSION,
    zulip_merge_base: SERVICE_VERSION,
    service_feature_level: FEATURE_LEVEL,
    service_version: SERVICE_VERSION,
    service_merge_base: SERVICE_VERSION,
  };
}

export async function registerQueue(app: AppContext, realm: Realm, user: User, input: RegisterInput): Promise<{ queue: ClientQueue; state: Record<string, unknown> }> {
  const idle = input.idleQueueTimeout ?? app.config.idleQueueTimeoutSecs;
  // The queue exists before the read starts, so no event committed after the read can be missed;
  // events the read already reflects are dropped by the snapshot check.
  const queue = app.queues.create({
    userId: user.id,
    realmId: realm.id,
    eventTypes: input.eventTypes,
    narrow: input.narrow,
    allPublicStreams: input.allPublicStreams,
    applyMarkdown: input.applyMarkdown,
    clientGravatar: input.clientGravatar,
    capabilities: input.capabilities,
    idleTimeoutSecs: idle,
    clientName: input.clientName,
  });
  try {
    let snapshot: ReadSnapshot | null = null;
    const state = await readState(app, realm, user, input, (s) => (snapshot = s));
    // Flushes notices held during the read that the snapshot did not include.
    app.queues.completeRegistration(queue, snapshot!);
    // Stored before the client learns its ID: after a crash the queue is rebuilt from the log.
    await app.queues.persist(queue);
    state.queue_id = queue.id;
    state.idle_queue_timeout_secs = idle;
    return { queue, state };
  } catch (err) {
    app.queues.remove(queue.id);
    throw err;
  }
}

/** Reads the requested state in one snapshot and reports which snapshot that was. */
export async function readState(
  app: AppContext,
  realm: Realm,
  user: User | null,
  input: RegisterInput,
  onSnapshot: (s: ReadSnapshot) => void = () => {},
): Promise<Record<string, unknown>> {
  const wanted = input.fetchEventTypes ?? input.eventTypes;
  // Some fields come as JSON text (realm_users): the answer writes them as they are.
  const state: Record<string, unknown> = withJsonText({
    ...serverInfo(),
    last_event_id: -1,
    max_topic_length: MAX_TOPIC_LENGTH,
    max_stream_name_length: MAX_STREAM_NAME_LENGTH,
    max_stream_description_length: MAX_STREAM_DESCRIPTION_LENGTH,
    max_message_length: MAX_MESSAGE_LENGTH,
    realm_empty_topic_display_name: emptyTopicDisplayName(realm) || EMPTY_TOPIC_DISPLAY_NAME,
    event_queue_longpoll_timeout_seconds: LONGPOLL_TIMEOUT_SECS,
    server_typing_started_wait_period_milliseconds: TYPING_STARTED_WAIT_MS,
    server_typing_stopped_wait_period_milliseconds: TYPING_STOPPED_WAIT_MS,
    server_typing_started_expiry_period_milliseconds: TYPING_STARTED_EXPIRY_MS,
  });
  await app.store.read(async (tx, snapshot) => {
    onSnapshot(snapshot);
    for (const fetcher of STATE_FETCHERS) {
      if (wanted && !fetcher.always && !fetcher.types.some((t) => wanted.includes(t))) continue;
      Object.assign(state, await fetcher.fetch({ app, tx, realm, user, opts: input }));
    }
  });
  return state;
}
