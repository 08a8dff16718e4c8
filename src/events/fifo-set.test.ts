// Unit tests of FifoSet: the same members, order and sizes as a Set under random adds and deletes, in two sets at once, with positions kept right through compaction.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FifoSet, type FifoMember } from './fifo-set.js';

class Item implements FifoMember {
  readonly fifoSlots = [0, 0];
  constructor(readonly n: number) {}
}

/** The members in order, read the only way the set offers: shifting them out (then put back, without their numbers). */
function drain(set: FifoSet<Item>): number[] {
  const out: Item[] = [];
  for (let x = set.shift(); x !== undefined; x = set.shift()) out.push(x);
  for (const x of out) set.add(x);
  return out.map((x) => x.n);
}

/** A small deterministic generator (the test must fail the same way every time it fails). */
function random(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s / 2147483648;
  };
}

test('a FifoSet holds the members a Set would, in insertion order, through random adds and deletes', () => {
  const items = Array.from({ length: 300 }, (_, i) => new Item(i));
  const next = random(7);
  const a = new FifoSet<Item>(0);
  const b = new FifoSet<Item>(1);
  const refA = new Set<Item>();
  const refB = new Set<Item>();
  for (let step = 0; step < 20_000; step++) {
    const x = items[Math.floor(next() * items.length)];
    const [set, ref, slot] = next() < 0.5 ? ([a, refA, 0] as const) : ([b, refB, 1] as const);
    const r = next();
    if (r < 0.45) {
      assert.equal(set.add(x), !ref.has(x));
      ref.add(x);
    } else if (r < 0.8) {
      assert.equal(set.delete(x), ref.delete(x));
    } else if (r < 0.9) {
      // Taking the oldest, as the registry's loops do.
      const first = set.shift();
      const expected = ref.values().next().value;
      assert.equal(first, expected);
      if (expected) ref.delete(expected);
    }
    assert.equal(set.size, ref.size);
    assert.equal(set.first(), ref.values().next().value);
    assert.equal(x.fifoSlots[slot] !== 0, ref.has(x), 'a member records its place; a non-member has none');
    if (step % 1000 === 0) {
      assert.deepEqual(drain(a), [...refA].map((i) => i.n));
      // drain() puts the members back in the same order, so the run goes on from the same state.
      assert.deepEqual(drain(b), [...refB].map((i) => i.n));
    }
  }
  assert.deepEqual(drain(a), [...refA].map((i) => i.n));
  assert.deepEqual(drain(b), [...refB].map((i) => i.n));
});

test('a member re-added goes to the end, with its new number; the first number follows the first member', () => {
  const [x, y, z] = [new Item(1), new Item(2), new Item(3)];
  const set = new FifoSet<Item>(0);
  set.add(x, 10);
  set.add(y, 20);
  set.add(z, 30);
  assert.equal(set.add(x, 99), false, 'already in: keeps its place and number');
  assert.equal(set.firstAt(), 10);
  set.delete(x);
  assert.equal(set.firstAt(), 20);
  set.add(x, 40);
  assert.equal(set.shift(), y);
  assert.equal(set.shift(), z);
  assert.equal(set.firstAt(), 40);
  assert.equal(set.first(), x);
  set.add(y, 50);
  set.clear();
  assert.equal(set.size, 0);
  assert.equal(set.first(), undefined);
  assert.equal(set.firstAt(), 0);
  assert.ok([x, y, z].every((i) => i.fifoSlots[0] === 0));
});

test('a set that fills and drains over and over keeps its order and does not grow past its most members', () => {
  const items = Array.from({ length: 1000 }, (_, i) => new Item(i));
  const set = new FifoSet<Item>(0);
  for (let round = 0; round < 20; round++) {
    for (const x of items) set.add(x);
    // Every other member leaves out of order, the rest from the front: compaction moves survivors.
    for (let i = 1; i < items.length; i += 2) set.delete(items[i]);
    for (let i = 0; i < 100; i += 2) assert.equal(set.shift(), items[i]);
    for (let i = 1; i < items.length; i += 2) set.add(items[i]);
    const order = drain(set);
    assert.deepEqual(order, [...items.filter((x) => x.n % 2 === 0 && x.n >= 100), ...items.filter((x) => x.n % 2 === 1)].map((x) => x.n));
    set.clear();
  }
  const length = (set as unknown as { items: unknown[] }).items.length;
  assert.ok(length <= 2 * items.length, `its array holds at most twice the most members (${length})`);
});
