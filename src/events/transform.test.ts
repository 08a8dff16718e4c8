// Unit test: the hand-written event JSON is byte for byte JSON.stringify's, for every event shape.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { eventJson, eventsJson } from './transform.js';
import type { QueuedEvent } from './queue.js';

const message = { id: 12, content: 'Ünïcode "quoted" \\ back\nslash 💩 \u2028', sender_id: 3, reactions: [], flags_like: null };

const shapes: QueuedEvent[] = [
  { type: 'message', message, flags: [], id: 0 },
  { type: 'message', message, flags: ['read', 'mentioned'], id: 7 },
  { type: 'message', message, flags: ['read'], local_message_id: '1.5', id: 8 },
  { type: 'message', message, flags: [], local_message_id: 42, id: 9 },
  // Shapes the fast path does not know go through the generic writer.
  { type: 'message', message, id: 10 } as QueuedEvent,
  { type: 'message', message, flags: [], extra: undefined, other: 'x', id: 11 },
  { type: 'message', flags: [], message, id: 12 },
  { type: 'message', message: null, id: 13 } as QueuedEvent,
  { type: 'heartbeat', id: 14 },
  { type: 'update_message', message_id: 12, rendered_content: '<p>x</p>', id: 15 },
];

test('eventJson writes what JSON.stringify writes', () => {
  for (const ev of shapes) assert.equal(eventJson(ev), JSON.stringify(ev), JSON.stringify(ev));
  assert.equal(eventsJson(shapes), JSON.stringify(shapes));
  assert.equal(eventsJson([]), '[]');
});

test('a message variant is serialized once and its text reused', () => {
  const shared = { id: 1, content: 'one' };
  const a = eventJson({ type: 'message', message: shared, flags: [], id: 1 });
  // Variants are never modified after they are built; the cached text shows it is reused.
  shared.content = 'changed';
  const b = eventJson({ type: 'message', message: shared, flags: [], id: 2 });
  assert.equal(a.replace('"id":1}', ''), b.replace('"id":2}', ''));
});
