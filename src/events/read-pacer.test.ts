// Unit tests of the read pacer: connections held only while answers go out, released in bounded turns, never held for ever.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ReadPacer, RELEASE_PER_TURN } from './read-pacer.js';

class FakeConnection {
  readonly fifoSlots = [0];
  paused = false;
  destroyed = false;
  resumes = 0;
  pause() {
    this.paused = true;
  }
  resume() {
    this.paused = false;
    this.resumes++;
  }
}

const tick = () => new Promise((r) => setImmediate(r));
const connections = (n: number) => Array.from({ length: n }, () => new FakeConnection());

test('a connection is held only while answers are still going out', async () => {
  let busy = false;
  const pacer = new ReadPacer(() => busy);
  const idle = new FakeConnection();
  pacer.hold(idle);
  assert.equal(idle.paused, false, 'nothing waits to be answered: its next request is read at once');
  busy = true;
  const held = new FakeConnection();
  pacer.hold(held);
  assert.equal(held.paused, true);
  await tick();
  pacer.kick();
  assert.equal(held.paused, true, 'still held while answering goes on');
  busy = false;
  pacer.kick();
  assert.equal(held.paused, false);
  assert.equal(pacer.size, 0);
});

test('held connections come back a bounded number per turn, oldest first, until none is left', async () => {
  let busy = true;
  const pacer = new ReadPacer(() => busy);
  const conns = connections(RELEASE_PER_TURN * 2 + 5);
  for (const c of conns) pacer.hold(c);
  busy = false;
  pacer.kick();
  assert.equal(conns.filter((c) => !c.paused).length, RELEASE_PER_TURN);
  assert.ok(conns.slice(0, RELEASE_PER_TURN).every((c) => !c.paused), 'the oldest first');
  await tick();
  assert.equal(conns.filter((c) => !c.paused).length, RELEASE_PER_TURN * 2, 'the next turn releases more by itself');
  await tick();
  assert.ok(conns.every((c) => !c.paused && c.resumes === 1));
  assert.equal(pacer.size, 0);
});

test('however long the answering lasts, a connection is released after the longest hold', async () => {
  const pacer = new ReadPacer(() => true, 30);
  const c = new FakeConnection();
  pacer.hold(c);
  pacer.kick();
  assert.equal(c.paused, true);
  await new Promise((r) => setTimeout(r, 40));
  pacer.kick();
  assert.equal(c.paused, false);
});

test('closed connections are dropped, not resumed; release-all frees the rest', () => {
  const pacer = new ReadPacer(() => true);
  const [gone, kept] = connections(2);
  pacer.hold(gone);
  pacer.hold(kept);
  gone.destroyed = true;
  pacer.releaseAll();
  assert.equal(gone.resumes, 0);
  assert.equal(kept.paused, false);
  assert.equal(pacer.size, 0);
  const late = new FakeConnection();
  late.destroyed = true;
  pacer.hold(late);
  assert.equal(pacer.size, 0, 'a closed connection is never held');
});
