// The events-consistency check: register, act, apply the events to the state, compare with a fresh register.
import assert from 'node:assert/strict';
import { applyEvents } from '../../src/events/apply.js';
import type { Client, ParamValue } from './server.js';

/** Event types seen by consistency checks in this process. */
export const coveredEventTypes = new Set<string>();

export const MODERN_CAPABILITIES = {
  notification_settings_null: true,
  bulk_message_deletion: true,
  user_avatar_url_field_optional: false,
  stream_typing_notifications: true,
  user_settings_object: true,
  empty_topic_name: true,
  include_deactivated_groups: true,
  archived_channels: true,
};

export const DEFAULT_REGISTER: Record<string, ParamValue> = {
  apply_markdown: true,
  client_gravatar: false,
  include_subscribers: true,
  client_capabilities: MODERN_CAPABILITIES,
};

// Presence polling bookkeeping: the read time and the latest update ID, which no event carries.
const VOLATILE = ['queue_id', 'last_event_id', 'server_timestamp', 'presence_last_update_id'];

function normalize(state: Record<string, any>): Record<string, any> {
  const copy = structuredClone(state);
  for (const k of VOLATILE) delete copy[k];
  delete copy.result;
  delete copy.msg;
  delete copy.__include_subscribers;
  return copy;
}

/** Polls without blocking until no new event arrives for a short while. */
export async function drainEvents(client: Client, queueId: string, lastEventId = -1): Promise<any[]> {
  const all: any[] = [];
  let last = lastEventId;
  for (let quiet = 0; quiet < 3; ) {
    const r = await client.ok('GET', 'events', { queue_id: queueId, last_event_id: last, dont_block: true });
    const fresh = (r.events as any[]).filter((e) => e.id > last);
    if (fresh.length) {
      all.push(...fresh);
      last = fresh[fresh.length - 1].id;
      quiet = 0;
    } else {
      quiet++;
      await new Promise((res) => setTimeout(res, 15));
    }
  }
  return all;
}

/**
 * Registers `client`, runs `action`, applies the events its queue received to the registered
 * state and asserts the result equals a fresh register. Returns the events for further checks.
 */
export async function checkConsistency(
  client: Client,
  action: () => Promise<unknown>,
  opts: { register?: Record<string, ParamValue>; expect?: string[] } = {},
): Promise<any[]> {
  const params = { ...DEFAULT_REGISTER, ...(opts.register ?? {}) };
  const before = await client.ok('POST', 'register', params);
  await action();
  const events = (await drainEvents(client, before.queue_id)).filter((e) => e.type !== 'heartbeat');
  for (const e of events) coveredEventTypes.add(e.type);
  for (const t of opts.expect ?? []) {
    assert.ok(events.some((e) => e.type === t), `expected a ${t} event, got ${events.map((e) => e.type).join(', ') || 'none'}`);
  }
  const state = normalize(before);
  if (params.include_subscribers === true) state.__include_subscribers = true;
  const capabilities = (typeof params.client_capabilities === 'string' ? JSON.parse(params.client_capabilities) : params.client_capabilities) as Record<string, boolean> | undefined;
  applyEvents(state, structuredClone(events), { userId: client.userId, clientGravatar: params.client_gravatar !== false, capabilities });
  delete state.__include_subscribers;
  const fresh = normalize(await client.ok('POST', 'register', params));
  assert.deepEqual(state, fresh);
  await client.ok('DELETE', 'events', { queue_id: before.queue_id });
  return events;
}
