// Small in-process caches of rarely-changing rows; writers invalidate them after commit.
import type { Realm, User } from '../store/schema.js';
import type { Store } from '../store/store.js';
import type { EventBus } from '../events/bus.js';

/**
 * How long a user row read for authentication is trusted without asking the database again. Every
 * change made by the server drops the row at once (userChanged); the TTL bounds only changes made
 * behind its back. Each polling client re-reads its row once per TTL: with 2 s, 10,000 busy clients
 * meant up to 5,000 queries a second.
 */
export const USER_CACHE_TTL_MS = 30_000;
/** At most this many users are cached; the oldest entry goes first. */
export const USER_CACHE_MAX = 50_000;

interface CachedUser {
  user: User;
  expires: number;
}

export class Caches {
  private readonly realms = new Map<string, Realm>();
  /** API key → user row. Map order is insertion order, so the first key is the oldest entry. */
  private readonly usersByKey = new Map<string, CachedUser>();
  /** User id → the API key it is cached under, so a changed key's old entry can be found. */
  private readonly keyOfUser = new Map<number, string>();
  /**
   * Authorization header → the cache entry of the user it was verified against. A long-poll sends
   * the same header each time; while that entry stands (same row, not expired, not dropped), the
   * header needs no base64 decoding and no key comparison again.
   */
  private readonly byVerifiedHeader = new Map<string, CachedUser>();
  /** Bumped by every userChanged: a read that started before it must not fill the cache. */
  private userEpoch = 0;
  private sweepTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly store: Store,
    private readonly bus?: EventBus,
    private readonly nowMs: () => number = Date.now,
  ) {
    bus?.subscribeControl((msg) => {
      if (msg.type === 'user_changed') this.dropUser(msg.userId);
      else if (msg.type === 'realm_changed') this.realms.clear();
    });
  }

  /** The cached organization, without a query (undefined when it is not cached yet). */
  cachedRealm(subdomain: string): Realm | undefined {
    return this.realms.get(subdomain);
  }

  async realmBySubdomain(subdomain: string): Promise<Realm | undefined> {
    const hit = this.realms.get(subdomain);
    if (hit) return hit;
    const row = await this.store.db.selectFrom('realms').selectAll().where('string_id', '=', subdomain).executeTakeFirst();
    if (row) this.realms.set(subdomain, row);
    return row;
  }

  invalidateRealms(): void {
    this.realms.clear();
  }

  /** Call after committing a change to an organization's row: this node drops it at once, the others on the bus message. */
  realmChanged(realmId: number): void {
    this.realms.clear();
    this.bus?.publishControl({ type: 'realm_changed', realmId });
  }

  /**
   * The user whose API key this is, from a cache of at most USER_CACHE_TTL_MS old rows (shared and
   * frozen: callers must not modify it). The caller still compares the key in constant time and
   * checks the realm and the deactivation flags on the row.
   */
  async userByApiKey(apiKey: string): Promise<User | undefined> {
    const hit = this.cachedUser(apiKey);
    if (hit) return hit;
    const epoch = this.userEpoch;
    const row = await this.store.db.selectFrom('users').selectAll().where('api_key', '=', apiKey).executeTakeFirst();
    if (!row) return undefined;
    // A change committed while this read ran may not be in the row: use it once, cache it not.
    if (epoch !== this.userEpoch) return row;
    // Thousands stay cached: rows must have V8's fast properties (pg's do; for SQLite see
    // store/sqlite-rows.ts), a dictionary-mode user row takes about 1.6 KB.
    const user = Object.freeze(row);
    this.remember(user, this.nowMs());
    return user;
  }

  /** The cached, still trusted row for this API key, without a query; undefined on a miss. */
  cachedUser(apiKey: string): User | undefined {
    const hit = this.usersByKey.get(apiKey);
    return hit && hit.expires > this.nowMs() ? hit.user : undefined;
  }

  /** The user this exact Authorization header was verified for, while that user's cached row stands. */
  userForVerifiedHeader(header: string): User | undefined {
    const e = this.byVerifiedHeader.get(header);
    if (e === undefined) return undefined;
    if (e.expires > this.nowMs() && this.usersByKey.get(e.user.api_key) === e) return e.user;
    this.byVerifiedHeader.delete(header);
    return undefined;
  }

  /** Records that the header's credentials matched this user; only a row that is cached counts. */
  rememberVerifiedHeader(header: string, user: User): void {
    const e = this.usersByKey.get(user.api_key);
    if (e?.user !== user) return;
    if (this.byVerifiedHeader.size >= USER_CACHE_MAX) this.byVerifiedHeader.clear();
    this.byVerifiedHeader.set(header, e);
  }

  /**
   * Call after committing any change to a users row (deactivation, API key, role, name…): drops
   * the user from this node's caches at once and tells the other nodes to do the same.
   */
  userChanged(userId: number): void {
    this.dropUser(userId);
    this.bus?.publishControl({ type: 'user_changed', userId });
  }

  private dropUser(userId: number): void {
    this.userEpoch++;
    const key = this.keyOfUser.get(userId);
    if (key === undefined) return;
    this.keyOfUser.delete(userId);
    this.usersByKey.delete(key);
  }

  private remember(user: User, now: number): void {
    const oldKey = this.keyOfUser.get(user.id);
    if (oldKey !== undefined && oldKey !== user.api_key) this.usersByKey.delete(oldKey);
    // Re-inserting moves the entry to the end, so eviction takes the least recently loaded.
    this.usersByKey.delete(user.api_key);
    this.usersByKey.set(user.api_key, { user, expires: now + USER_CACHE_TTL_MS });
    this.keyOfUser.set(user.id, user.api_key);
    if (this.usersByKey.size > USER_CACHE_MAX) {
      const [oldestKey, oldest] = this.usersByKey.entries().next().value!;
      this.usersByKey.delete(oldestKey);
      if (this.keyOfUser.get(oldest.user.id) === oldestKey) this.keyOfUser.delete(oldest.user.id);
    }
    this.scheduleSweep();
  }

  /** Expired entries are dropped soon after, so an idle server does not keep thousands of rows. */
  private scheduleSweep(): void {
    if (this.sweepTimer) return;
    this.sweepTimer = setTimeout(() => {
      this.sweepTimer = null;
      const now = this.nowMs();
      for (const [key, e] of this.usersByKey) {
        if (e.expires > now) continue;
        this.usersByKey.delete(key);
        if (this.keyOfUser.get(e.user.id) === key) this.keyOfUser.delete(e.user.id);
      }
      for (const [header, e] of this.byVerifiedHeader) {
        if (this.usersByKey.get(e.user.api_key) !== e) this.byVerifiedHeader.delete(header);
      }
      if (this.usersByKey.size) this.scheduleSweep();
    }, USER_CACHE_TTL_MS * 5);
    this.sweepTimer.unref();
  }
}
