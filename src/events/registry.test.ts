// Unit tests of the queue registry: snapshot filtering at registration, per-client shaping, ordering in slices.
import { test } from 'node:test';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import assert from 'node:assert/strict';
import { MAX_IN_FLIGHT, QueueRegistry } from './registry.js';
import type { ClientQueue, PollListener, QueuedEvent } from './queue.js';
import type { Notice } from './types.js';
import type { ReadSnapshot } from '../store/store.js';

const now = () => 1000;
const baseQueue = { realmId: 1, eventTypes: null, narrow: [], allPublicStreams: false, applyMarkdown: true, clientGravatar: false, capabilities: {}, idleTimeoutSecs: 600, clientName: 'test' };
const seqSnapshot = (upTo: number): ReadSnapshot => ({ isVisible: (s) => s.kind === 'seq' && s.seq <= upTo, toJSON: () => null });
const notice = (seq: number | null, users: number[], event: Notice['event']): Notice => ({ realmId: 1, stamp: seq === null ? null : { kind: 'seq', seq }, users, event });
const tick = () => new Promise((r) => setImmediate(r));
/** Waits until every notice published so far is delivered (however many turns its slices take). */
async function delivered(reg: QueueRegistry): Promise<void> {
  for (let i = 0; i < 100_000 && reg.deliveryPending; i++) await tick();
  assert.equal(reg.deliveryPending, false, 'delivery finished');
}

/** What tells a test's poll that its client left: an AbortSignal, or a stand-in for an HTTP/1.1 connection. */
interface PollCancel {
  readonly aborted: boolean;
  readonly pacedReads?: boolean;
  addEventListener(type: 'abort', listener: () => void): void;
}

/** A long-poll as a promise of its answer (a waiting poll whose client leaves is never answered). */
function poll(reg: QueueRegistry, q: ClientQueue, lastEventId: number | undefined, dontBlock: boolean, cancel: PollCancel): Promise<QueuedEvent[]> {
  return new Promise((resolve) => {
    const listener: PollListener = {
      get aborted() {
        return cancel.aborted;
      },
      pacedReads: cancel.pacedReads === true,
      onClose: (queue, owner) => cancel.addEventListener('abort', () => owner.pollClosed(queue, listener)),
      deliver: resolve,
    };
    reg.listen(q, lastEventId, dontBlock, listener);
  });
}

test('notices that arrive before the snapshot is known are kept only if the snapshot missed them', async () => {
  const reg = new QueueRegistry({ nodeId: 't', heartbeatSecs: 50, now });
  const q = reg.create({ ...baseQueue, userId: 7 });
  reg.deliver([notice(1, [7], { type: 'realm_user', op: 'add', n: 1 }), notice(2, [7], { type: 'realm_user', op: 'add', n: 2 }), notice(null, [7], { type: 'typing', op: 'start' })]);
  await delivered(reg);
  assert.equal(q.events.length, 0, 'nothing is visible before registration completes');
  reg.completeRegistration(q, seqSnapshot(1));
  assert.deepEqual(q.events.map((e) => [e.type, e.n ?? null]), [['realm_user', 2], ['typing', null]]);
  // After registration, a late notice of an already-visible commit is still dropped.
  reg.deliver([notice(1, [7], { type: 'realm_user', op: 'add', n: 1 }), notice(3, [7], { type: 'realm_user', op: 'add', n: 3 })]);
  await delivered(reg);
  assert.deepEqual(q.events.map((e) => e.n ?? null), [2, null, 3]);
  assert.deepEqual(q.events.map((e) => e.id), [0, 1, 2]);
});

test('deletion events are split per message for clients without bulk_message_deletion', async () => {
  const reg = new QueueRegistry({ nodeId: 't', heartbeatSecs: 50, now });
  const legacy = reg.create({ ...baseQueue, userId: 1 });
  const modern = reg.create({ ...baseQueue, userId: 1, capabilities: { bulk_message_deletion: true } });
  reg.completeRegistration(legacy, seqSnapshot(0));
  reg.completeRegistration(modern, seqSnapshot(0));
  reg.deliver([notice(1, [1], { type: 'delete_message', message_ids: [5, 6], message_type: 'private' })]);
  await delivered(reg);
  assert.deepEqual(legacy.events.map((e) => e.message_id), [5, 6]);
  assert.deepEqual(modern.events.map((e) => e.message_ids), [[5, 6]]);
});

test('empty topics are shown as the display name to clients without empty_topic_name', async () => {
  const reg = new QueueRegistry({ nodeId: 't', heartbeatSecs: 50, now });
  const legacy = reg.create({ ...baseQueue, userId: 1 });
  const modern = reg.create({ ...baseQueue, userId: 1, capabilities: { empty_topic_name: true } });
  reg.completeRegistration(legacy, seqSnapshot(0));
  reg.completeRegistration(modern, seqSnapshot(0));
  reg.deliver([notice(1, [1], { type: 'delete_message', message_ids: [5], message_type: 'stream', stream_id: 3, topic: '', __empty_topic_name: 'general chat' })]);
  await delivered(reg);
  assert.equal(legacy.events[0].topic, 'general chat');
  assert.equal(modern.events[0].topic, '');
  assert.equal('__empty_topic_name' in modern.events[0], false);
});

test('a public channel notice reaches all-public-streams queues once, whether or not their user is a recipient', async () => {
  const reg = new QueueRegistry({ nodeId: 't', heartbeatSecs: 50, now });
  const recipient = reg.create({ ...baseQueue, userId: 1, allPublicStreams: true });
  const outsider = reg.create({ ...baseQueue, userId: 2, allPublicStreams: true });
  const plain = reg.create({ ...baseQueue, userId: 3 });
  for (const q of [recipient, outsider, plain]) reg.completeRegistration(q, seqSnapshot(0));
  reg.deliver([
    { ...notice(1, [1, 3], { type: 'realm_user', op: 'add', n: 1 }), publicStreamId: 9 },
    { ...notice(2, [3], { type: 'realm_user', op: 'add', n: 2 }), publicStreamId: 9 },
    notice(3, [1], { type: 'realm_user', op: 'add', n: 3 }),
  ]);
  await delivered(reg);
  assert.deepEqual(recipient.events.map((e) => e.n), [1, 2, 3]);
  assert.deepEqual(outsider.events.map((e) => e.n), [1, 2]);
  assert.deepEqual(plain.events.map((e) => e.n), [1, 2]);
  reg.stop();
});

test('a large fan-out is delivered completely and in order, across slices', async () => {
  const reg = new QueueRegistry({ nodeId: 't', heartbeatSecs: 50, now });
  const users = Array.from({ length: 5000 }, (_, i) => i + 1);
  const queues = users.map((u) => reg.create({ ...baseQueue, userId: u }));
  for (const q of queues) reg.completeRegistration(q, seqSnapshot(0));
  reg.deliver([notice(1, users, { type: 'realm_user', op: 'add', n: 1 }), notice(2, users, { type: 'realm_user', op: 'add', n: 2 })]);
  // Slices are timed, so how many turns of the loop it takes depends on the machine.
  for (let i = 0; i < 5000 && queues.some((q) => q.events.length < 2); i++) await tick();
  for (const q of queues) assert.deepEqual(q.events.map((e) => e.n), [1, 2]);
});

/**
 * One queue and a burst of `total` notices for it, published: far more than one 4 ms slice of work
 * on any machine, but one queue each, so only the clock read between notices can end a slice.
 */
function burstToOneQueue(total: number) {
  const reg = new QueueRegistry({ nodeId: 't', heartbeatSecs: 50, now });
  const q = reg.create({ ...baseQueue, userId: 1 });
  reg.completeRegistration(q, seqSnapshot(0));
  reg.deliver(Array.from({ length: total }, (_, i) => notice(i + 1, [1], { type: 'realm_user', op: 'add', n: i + 1 })));
  return { reg, q };
}

test('a burst of small notices is delivered in slices too, in order', async () => {
  const total = 50_000;
  const { reg, q } = burstToOneQueue(total);
  await tick();
  assert.ok(q.events.length > 0 && q.events.length < total, `the loop ran again mid-burst (${q.events.length} of ${total} delivered)`);
  for (let i = 0; i < 100_000 && q.events.length < total; i++) await tick();
  assert.equal(q.events.length, total);
  assert.ok(q.events.every((e, i) => e.n === i + 1));
  reg.stop();
});

test('a waiting poll is answered by the next event and a newer poll replaces an older one', async () => {
  const reg = new QueueRegistry({ nodeId: 't', heartbeatSecs: 50, now });
  const q = reg.create({ ...baseQueue, userId: 1 });
  reg.completeRegistration(q, seqSnapshot(0));
  const older = poll(reg, q, -1, false, new AbortController().signal);
  const newer = poll(reg, q, -1, false, new AbortController().signal);
  assert.deepEqual(await older, []);
  reg.deliver([notice(1, [1], { type: 'realm_user', op: 'add' })]);
  const got = await newer;
  assert.equal(got.length, 1);
  reg.stop();
});

test('while the event loop is busy, a queue answered moments ago waits out the longer gap', async () => {
  let utilization = 0.9;
  const reg = new QueueRegistry({ nodeId: 't', heartbeatSecs: 50, now, minAnswerGapMs: 100, busyAnswerGapMs: 600, loopUtilization: () => utilization });
  const alive = setInterval(() => {}, 1000);
  try {
    const q = reg.create({ ...baseQueue, userId: 1 });
    reg.completeRegistration(q, seqSnapshot(0));
    const cancel = new AbortController().signal;
    let n = 0;
    /** Answers the queue's poll with one event, then polls again and delivers the next event; resolves with how long that second answer took. */
    const busyRound = async () => {
      const first = poll(reg, q, n - 1, false, cancel);
      reg.deliver([notice(++n, [1], { type: 'realm_user', op: 'add', n })]);
      await first;
      const second = poll(reg, q, n - 1, false, cancel);
      const t0 = performance.now();
      let answeredAt = 0;
      void second.then(() => (answeredAt = performance.now()));
      reg.deliver([notice(++n, [1], { type: 'realm_user', op: 'add', n })]);
      await new Promise((r) => setTimeout(r, 300));
      const heldPast300 = answeredAt === 0;
      assert.deepEqual((await second).map((e) => e.n), [n]);
      return { heldPast300, ms: answeredAt - t0 };
    };
    const busy = await busyRound();
    assert.ok(busy.heldPast300, 'a busy loop holds the answer past the quiet gap');
    assert.ok(busy.ms >= 500, `held for the busy gap (${busy.ms} ms)`);
    // The loop is quiet again: the short gap applies.
    utilization = 0.2;
    await new Promise((r) => setTimeout(r, 650));
    const quiet = await busyRound();
    assert.ok(!quiet.heldPast300, `answered after the quiet gap (${quiet.ms} ms)`);
  } finally {
    reg.stop();
    clearInterval(alive);
  }
});

test('a queue answered moments ago gets the events of the next moments in one answer; a quiet one is answered at once', async () => {
  // A long gap keeps the test independent of the machine's speed.
  const reg = new QueueRegistry({ nodeId: 't', heartbeatSecs: 50, now, minAnswerGapMs: 300 });
  // The registry's timers are unreferenced (held sockets keep a server alive); here nothing else would.
  const alive = setInterval(() => {}, 1000);
  try {
    const q = reg.create({ ...baseQueue, userId: 1 });
    reg.completeRegistration(q, seqSnapshot(0));
    const cancel = new AbortController().signal;
    const first = poll(reg, q, -1, false, cancel);
    reg.deliver([notice(1, [1], { type: 'realm_user', op: 'add', n: 1 })]);
    assert.deepEqual((await first).map((e) => e.n), [1]);
    // Busy: the next poll is held through the gap, collecting what arrives meanwhile.
    const second = poll(reg, q, 0, false, cancel);
    let answered = false;
    void second.then(() => (answered = true));
    reg.deliver([notice(2, [1], { type: 'realm_user', op: 'add', n: 2 })]);
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(answered, false, 'held during the gap');
    reg.deliver([notice(3, [1], { type: 'realm_user', op: 'add', n: 3 })]);
    assert.deepEqual((await second).map((e) => e.n), [2, 3]);
    // Quiet: once the gap has passed, an event is answered at once.
    await new Promise((r) => setTimeout(r, 350));
    const third = poll(reg, q, 2, false, cancel);
    const t0 = performance.now();
    reg.deliver([notice(4, [1], { type: 'realm_user', op: 'add', n: 4 })]);
    assert.deepEqual((await third).map((e) => e.n), [4]);
    assert.ok(performance.now() - t0 < 300, 'not held for a gap');
    // dont_block never waits.
    reg.deliver([notice(5, [1], { type: 'realm_user', op: 'add', n: 5 })]);
    await delivered(reg);
    assert.deepEqual((await poll(reg, q, 3, true, cancel)).map((e) => e.n), [5]);
  } finally {
    reg.stop();
    clearInterval(alive);
  }
});

/**
 * Runs a test against a registry whose timers are unreferenced (held sockets keep a server alive;
 * here nothing else would), with n registered queues (users 1..n), each with a waiting poll whose
 * answer is recorded by queue index.
 */
async function withPollingQueues(
  opts: { heartbeatSecs: number; minAnswerGapMs: number; n: number; pacedReads?: boolean },
  body: (ctx: { reg: QueueRegistry; queues: ReturnType<QueueRegistry['create']>[]; users: number[]; answers: Map<number, string[]>; cancel: PollCancel }) => Promise<void>,
): Promise<void> {
  const reg = new QueueRegistry({ nodeId: 't', heartbeatSecs: opts.heartbeatSecs, now, minAnswerGapMs: opts.minAnswerGapMs });
  const alive = setInterval(() => {}, 1000);
  try {
    const users = Array.from({ length: opts.n }, (_, i) => i + 1);
    const queues = users.map((u) => reg.create({ ...baseQueue, userId: u }));
    for (const q of queues) reg.completeRegistration(q, seqSnapshot(0));
    const signal = new AbortController().signal;
    // HTTP/1.1 polls: the connection's next request is held back after the answer (ReadPacer).
    const cancel: PollCancel = opts.pacedReads ? { aborted: false, pacedReads: true, addEventListener: (t, l) => signal.addEventListener(t, l) } : signal;
    const answers = new Map<number, string[]>();
    queues.forEach((q, i) => void poll(reg, q, -1, false, cancel).then((evs) => answers.set(i, evs.map((e) => e.type))));
    await body({ reg, queues, users, answers, cancel });
  } finally {
    reg.stop();
    clearInterval(alive);
  }
}

const turns = async (n: number, until: () => boolean = () => false) => {
  for (let i = 0; i < n && !until(); i++) await tick();
};

test('answers waiting for their client to poll again are bounded; each returning poll lets another go', async () => {
  const n = MAX_IN_FLIGHT + 72;
  await withPollingQueues({ heartbeatSecs: 50, minAnswerGapMs: 0, n }, async ({ reg, queues, users, answers, cancel }) => {
    reg.deliver([notice(1, users, { type: 'realm_user', op: 'add', n: 1 })]);
    await turns(100);
    assert.equal(answers.size, MAX_IN_FLIGHT);
    // Ten clients come back: ten more answers go out.
    for (const i of [...answers.keys()].slice(0, 10)) void poll(reg, queues[i], 0, false, cancel);
    await turns(100);
    assert.equal(answers.size, MAX_IN_FLIGHT + 10);
    // Clients that never come back stop counting after a while: everyone gets the event.
    await new Promise((r) => setTimeout(r, 1100));
    await turns(100, () => answers.size === n);
    assert.equal(answers.size, n);
  });
});

test('answers whose connection is held back afterwards are not bounded: their polls cannot come back as a flood', async () => {
  const n = MAX_IN_FLIGHT + 72;
  await withPollingQueues({ heartbeatSecs: 50, minAnswerGapMs: 0, n, pacedReads: true }, async ({ reg, users, answers }) => {
    reg.deliver([notice(1, users, { type: 'realm_user', op: 'add', n: 1 })]);
    await turns(100, () => answers.size === n);
    assert.equal(answers.size, n, 'every answer went out though no client came back');
  });
});

test('heartbeats falling due together go out under the same bound as event answers', async () => {
  const n = MAX_IN_FLIGHT + 40;
  await withPollingQueues({ heartbeatSecs: 0.05, minAnswerGapMs: 0, n }, async ({ answers }) => {
    await new Promise((r) => setTimeout(r, 150));
    await turns(100);
    assert.equal(answers.size, MAX_IN_FLIGHT, 'the rest wait for clients to come back');
    assert.ok([...answers.values()].every((types) => types.join() === 'heartbeat'));
    await new Promise((r) => setTimeout(r, 1100));
    await turns(100, () => answers.size === n);
    assert.equal(answers.size, n);
  });
});

test('delivery starts on the next turn, but a poll sees every notice published before it', async () => {
  const reg = new QueueRegistry({ nodeId: 't', heartbeatSecs: 50, now });
  const q = reg.create({ ...baseQueue, userId: 1 });
  reg.completeRegistration(q, seqSnapshot(0));
  reg.deliver([notice(1, [1], { type: 'realm_user', op: 'add', n: 1 })]);
  // The publisher (a send) answers its own client before the fan-out runs.
  assert.equal(q.events.length, 0);
  assert.deepEqual((await poll(reg, q, -1, true, new AbortController().signal)).map((e) => e.n), [1]);
  reg.deliver([notice(2, [1], { type: 'realm_user', op: 'add', n: 2 })]);
  await delivered(reg);
  assert.deepEqual(q.events.map((e) => e.n), [1, 2], 'delivered without a poll too');
  reg.stop();
});

test('a non-blocking poll during a delivery in slices sees every notice published before it', async () => {
  const total = 50_000;
  const { reg, q } = burstToOneQueue(total);
  await tick();
  assert.ok(q.events.length < total, 'the delivery is between slices');
  const events = await poll(reg, q, -1, true, new AbortController().signal);
  assert.equal(events.length, total);
  assert.ok(events.every((e, i) => e.n === i + 1));
  reg.stop();
});

test('saving at shutdown first delivers what was published, also a fan-out halfway through its slices', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-registry-'));
  try {
    const reg = new QueueRegistry({ nodeId: 't', heartbeatSecs: 50, now });
    const users = Array.from({ length: 20000 }, (_, i) => i + 1);
    const queues = users.map((u) => reg.create({ ...baseQueue, userId: u }));
    for (const q of queues) reg.completeRegistration(q, seqSnapshot(0));
    reg.deliver([notice(1, users, { type: 'realm_user', op: 'add', n: 1 })]);
    // Let the fan-out start and pause between slices (a slice is a few milliseconds here).
    for (let i = 0; i < 100 && queues[0].events.length === 0; i++) await tick();
    reg.deliver([notice(2, users, { type: 'realm_user', op: 'add', n: 2 })]);
    reg.stop();
    reg.save(path.join(dir, 'queues.json'));
    const restored = new QueueRegistry({ nodeId: 't', heartbeatSecs: 50, now });
    assert.equal(restored.load(path.join(dir, 'queues.json')), users.length);
    for (const q of queues) assert.deepEqual(restored.get(q.id)!.events.map((e) => e.n), [1, 2]);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('events a client acknowledged through another copy of its queue (another node) are not sent again when this copy makes them', async () => {
  const reg = new QueueRegistry({ nodeId: 't', heartbeatSecs: 50, now });
  const q = reg.create({ ...baseQueue, userId: 7 });
  reg.completeRegistration(q, seqSnapshot(0));
  reg.deliver([notice(1, [7], { type: 'realm_user', op: 'add', n: 1 })]);
  await delivered(reg);
  // The client polls this copy with an ID another copy handed out (events 0 and 1), while this copy made only event 0.
  const answer = poll(reg, q, 1, false, { aborted: false, addEventListener: () => {} });
  reg.deliver([notice(2, [7], { type: 'realm_user', op: 'add', n: 2 }), notice(3, [7], { type: 'realm_user', op: 'add', n: 3 })]);
  await delivered(reg);
  const events = await answer;
  assert.deepEqual(
    events.map((e) => [e.id, e.n]),
    [[2, 3]],
    'event 1 (n: 2) was acknowledged already; the answer starts after it',
  );
});
