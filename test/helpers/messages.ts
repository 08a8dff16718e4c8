// Shared fixtures for the messages, reactions and flags tests: event queues and channels.
import type { Client, TestServer } from './server.js';
import { insertStream } from '../../src/lib/streams-create.js';

export const MESSAGE_EVENT_TYPES = ['message', 'update_message', 'delete_message', 'reaction', 'update_message_flags', 'stream'];

/** Registers a queue for the client and returns a function that drains its events. */
export async function queueFor(c: Client, extra: Record<string, unknown> = {}) {
  const reg = await c.ok('POST', 'register', { event_types: MESSAGE_EVENT_TYPES, apply_markdown: true, ...extra });
  let last = -1;
  return {
    id: reg.queue_id as string,
    state: reg,
    async events(): Promise<Record<string, any>[]> {
      const r = await c.ok('GET', 'events', { queue_id: reg.queue_id, last_event_id: last, dont_block: true });
      if (r.events.length) last = r.events[r.events.length - 1].id;
      return (r.events as Record<string, any>[]).filter((e) => e.type !== 'heartbeat');
    },
  };
}

/** Creates a channel directly in the database and subscribes the given users. */
export async function newChannel(s: TestServer, name: string, opts: { inviteOnly?: boolean; historyPublic?: boolean; subscribers: Client[]; realmId?: number }) {
  const app = s.running.app;
  const { result: stream } = await app.store.write((tx) =>
    insertStream(tx, {
      realmId: opts.realmId ?? s.realm.id,
      name,
      description: '',
      renderedDescription: '',
      inviteOnly: opts.inviteOnly ?? false,
      historyPublicToSubscribers: opts.historyPublic ?? true,
      isWebPublic: false,
      creatorId: null,
      messageRetentionDays: null,
      topicsPolicy: 'inherit',
      permissions: {},
      now: 1,
    }),
  );
  for (const c of opts.subscribers) await subscribe(s, c, stream.id);
  return stream;
}

export async function subscribe(s: TestServer, c: Client, streamId: number): Promise<void> {
  await s.running.app.store.db.insertInto('subscriptions').values({ user_id: c.userId, stream_id: streamId, active: 1, is_muted: 0, pin_to_top: 0, color: '#76ce90' }).execute();
}

export async function streamId(s: TestServer, name: string): Promise<number> {
  const row = await s.running.app.store.db.selectFrom('streams').select('id').where('name', '=', name).where('realm_id', '=', s.realm.id).executeTakeFirstOrThrow();
  return row.id;
}
