// The live loop: one /register, then /events long-polls; every event goes to the reducers. Reconnects
// with backoff, registers again when the queue is gone, and loads the open feed again then.
import { api, ApiError } from './api.js';
import { fromRegister, REGISTER_PARAMS, dmKey } from './state/model.js';
import { applyEvent } from './state/apply.js';
import { applyMessageEvent, emptyStore } from './state/messages.js';
import { connection, currentNarrow, messages, serverInfo, session, state, typing } from './store.js';
import { loadFeed } from './feed-loader.js';
import { notifyIfWanted } from './notify.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** A long-poll answers within the heartbeat interval (about a minute); longer means the connection is dead. */
const POLL_TIMEOUT_MS = 90_000;
const MAX_BACKOFF_MS = 30_000;

let running = false;
let stopRequested = false;

export function stopLive(): void {
  stopRequested = true;
}

/** Typing keys: where a typing event's conversation is, as the compose box names it. */
export function typingKeyOf(e: any, me: number): string {
  if (e.message_type === 'stream') return `stream:${e.stream_id}:${String(e.topic).toLowerCase()}`;
  return `dm:${dmKey((e.recipients as { user_id: number }[]).map((r) => r.user_id).filter((id) => id !== me))}`;
}

function applyTyping(e: any, me: number): void {
  const key = typingKeyOf(e, me);
  const who = e.sender.user_id as number;
  if (who === me) return;
  const next = { ...typing.value, [key]: { ...(typing.value[key] ?? {}) } };
  if (e.op === 'start') next[key][who] = Date.now() + serverInfo.value.typingExpiryMs;
  else delete next[key][who];
  typing.value = next;
}

export function dispatch(events: any[]): void {
  const st = state.value;
  if (!st) return;
  let nextState = st;
  let nextMessages = messages.value;
  for (const e of events) {
    if (e.type === 'typing') applyTyping(e, st.me);
    nextState = applyEvent(nextState, e);
    nextMessages = applyMessageEvent(nextMessages, e, st.me);
    if (e.type === 'message') {
      notifyIfWanted(e, nextState);
      // A message ends its sender's typing notice.
      const sender = e.message.sender_id as number;
      const key = e.message.type === 'stream' ? `stream:${e.message.stream_id}:${String(e.message.subject).toLowerCase()}` : `dm:${dmKey((e.message.display_recipient as { id: number }[]).map((r) => r.id).filter((id) => id !== st.me))}`;
      if (typing.value[key]?.[sender]) {
        const t = { ...typing.value, [key]: { ...typing.value[key] } };
        delete t[key][sender];
        typing.value = t;
      }
    }
  }
  state.value = nextState;
  messages.value = nextMessages;
}

async function register(): Promise<{ queueId: string; lastEventId: number }> {
  const reg = await api('POST', 'register', REGISTER_PARAMS);
  serverInfo.value = {
    emojiDataUrl: reg.server_emoji_data_url ?? '',
    typingStartWaitMs: reg.server_typing_started_wait_period_milliseconds ?? 10_000,
    typingStopWaitMs: reg.server_typing_stopped_wait_period_milliseconds ?? 5_000,
    typingExpiryMs: reg.server_typing_started_expiry_period_milliseconds ?? 15_000,
    maxUploadMib: reg.max_file_upload_size_mib ?? 25,
  };
  state.value = fromRegister(reg);
  // Messages from before are stale after a new register (events were missed): load the feed again.
  messages.value = emptyStore();
  await loadFeed(currentNarrow.value);
  return { queueId: reg.queue_id, lastEventId: reg.last_event_id };
}

/** Reports this user's presence (active while the page is visible) once a minute. */
function reportPresence(): void {
  const status = document.visibilityState === 'visible' ? 'active' : 'idle';
  void api('POST', 'users/me/presence', { status, new_user_input: status === 'active', slim_presence: true }).catch(() => undefined);
}
let presenceTimer: ReturnType<typeof setInterval> | null = null;

/** Runs until logged out: register, poll, reconnect. */
export async function runLive(): Promise<void> {
  if (running) return;
  running = true;
  stopRequested = false;
  let backoff = 500;
  const pause = async () => {
    connection.value = 'reconnecting';
    await sleep(backoff + Math.random() * backoff * 0.3);
    backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
  };
  reportPresence();
  presenceTimer ??= setInterval(reportPresence, 60_000);
  try {
    while (!stopRequested) {
      let queue: { queueId: string; lastEventId: number };
      try {
        queue = await register();
      } catch (err) {
        if (err instanceof ApiError && err.status === 401) return void (session.value = null);
        await pause();
        continue;
      }
      connection.value = 'live';
      backoff = 500;
      while (!stopRequested) {
        const abort = new AbortController();
        const timer = setTimeout(() => abort.abort(), POLL_TIMEOUT_MS);
        try {
          const r = await api('GET', 'events', { queue_id: queue.queueId, last_event_id: queue.lastEventId }, abort.signal);
          if (connection.value !== 'live') connection.value = 'live';
          backoff = 500;
          const events = (r.events as any[]).filter((e) => e.id > queue.lastEventId);
          if (events.length) queue.lastEventId = events[events.length - 1].id;
          dispatch(events.filter((e) => e.type !== 'heartbeat'));
        } catch (err) {
          if (err instanceof ApiError && err.code === 'BAD_EVENT_QUEUE_ID') break;
          if (err instanceof ApiError && err.status === 401) return void (session.value = null);
          // The server restarted or the network dropped: the queue usually survives, so poll it again.
          await pause();
        } finally {
          clearTimeout(timer);
        }
      }
    }
  } finally {
    running = false;
    if (presenceTimer) clearInterval(presenceTimer);
    presenceTimer = null;
  }
}
