// An insertion-ordered set of objects that allocates nothing per add or delete, for the registry's and the read pacer's per-poll bookkeeping.

/**
 * Why not a Set: the queues with a waiting poll, the queues woken by a notice, the answers in
 * flight and the connections held back all fill to 10,000 and drain again on every message to a
 * 10,000-person channel. A Set rebuilds its hash table each time it doubles or halves, and those
 * tables lived long enough to be copied by the young-generation collector: about a fifth of the
 * bytes it copied in that benchmark (docs/performance.md, "Long-polls and fan-out"). Here a member records
 * its own position, so deleting one is a store; the arrays keep their size (the most members held
 * at once, with at most as many holes) and are compacted in place.
 */
export interface FifoMember {
  /**
   * One entry per FifoSet the object can be in (the set's `slot`): its position there plus one,
   * 0 when it is not in that set. Only FifoSet writes them.
   */
  readonly fifoSlots: number[];
}

export class FifoSet<T extends FifoMember> {
  /** Members in order, and holes (null) where members were deleted; nothing but null from `end` on. */
  private readonly items: (T | null)[] = [];
  /** A number kept with each member (the read pacer's hold time). */
  private readonly times: number[] = [];
  /** The first member's position (when there is one). */
  private head = 0;
  private end = 0;
  private count = 0;

  /** slot: which entry of its members' fifoSlots this set uses. */
  constructor(private readonly slot: number) {}

  get size(): number {
    return this.count;
  }

  /** Appends x, with a number kept for it (see firstAt); false if it is in already (it keeps its place). */
  add(x: T, at = 0): boolean {
    if (x.fifoSlots[this.slot] !== 0) return false;
    // Out of room with at least half of it unused: closing the gaps costs no more than the adds that made them.
    if (this.end === this.items.length && this.end - this.count >= this.count) this.compact();
    const i = this.end++;
    if (i === this.items.length) {
      this.items.push(x);
      this.times.push(at);
    } else {
      this.items[i] = x;
      this.times[i] = at;
    }
    x.fifoSlots[this.slot] = i + 1;
    this.count++;
    return true;
  }

  /** Removes x; false if it was not in. */
  delete(x: T): boolean {
    const position = x.fifoSlots[this.slot] - 1;
    if (position < 0) return false;
    x.fifoSlots[this.slot] = 0;
    this.items[position] = null;
    this.count--;
    if (this.count === 0) {
      // Every slot from head to end is a hole now.
      this.head = 0;
      this.end = 0;
    } else if (position === this.head) {
      while (this.items[this.head] === null) this.head++;
    }
    return true;
  }

  /** The member added longest ago, if any. */
  first(): T | undefined {
    return this.count ? this.items[this.head]! : undefined;
  }

  /** The number kept with the first member (0 when empty). */
  firstAt(): number {
    return this.count ? this.times[this.head] : 0;
  }

  /** Removes and returns the member added longest ago. */
  shift(): T | undefined {
    const x = this.first();
    if (x !== undefined) this.delete(x);
    return x;
  }

  clear(): void {
    while (this.count) this.shift();
  }

  /** Moves the members to the front, in order (their positions change; nothing else does). */
  private compact(): void {
    let to = 0;
    for (let from = this.head; from < this.end; from++) {
      const x = this.items[from];
      if (x === null) continue;
      if (from !== to) {
        this.items[to] = x;
        this.times[to] = this.times[from];
        this.items[from] = null;
        x.fifoSlots[this.slot] = to + 1;
      }
      to++;
    }
    this.head = 0;
    this.end = to;
  }
}
