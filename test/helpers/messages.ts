// Shared fixtures for the messages, reactions and flags tests: event queues and channels.
import type { Client, TestServer } from './server.js';
import { sql } from 'kysely';
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

/** A new channel message's row, for tests that call the send statements directly. */
export function channelMessageRow(s: TestServer, ch: { id: number; recipient_id: number }, senderId: number, content: string, dateSent = 1) {
  return { realm_id: s.realm.id, type: 2, recipient_id: ch.recipient_id, stream_id: ch.id, sender_id: senderId, topic: 't', topic_key: 't', content, rendered_content: `<p>${content}</p>`, date_sent: dateSent, sending_client: 'test', last_edit_time: null, last_moved_time: null, edit_history: null, is_me_message: 0, has_link: 0, has_image: 0, has_attachment: 0 };
}

/** PostgreSQL: a channel row's version (xmin), as a send remembers it. */
export async function channelVersion(s: TestServer, streamId: number): Promise<string> {
  return (await sql<{ v: string }>`SELECT xmin::text AS v FROM streams WHERE id = ${streamId}`.execute(s.running.app.store.db)).rows[0].v;
}
