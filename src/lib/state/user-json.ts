// realm_users as JSON text from a per-organization cache: an unchanged user is neither read, presented nor serialized again.
import { sql } from 'kysely';
import type { Store, Tx } from '../../store/store.js';
import type { Dialect } from '../../store/dialect.js';
import { PRESENTED_USER_COLUMNS, presentUser, type PresentedUser } from '../../presenters/user.js';
import { rowMaker } from '../../store/sqlite-rows.js';
import { canSeeDeliveryEmail } from '../users.js';
import type { User } from '../../store/schema.js';

/**
 * One user as the cache holds it: the row (for the viewer-dependent choices) and its JSON text per
 * presentation variant (see variantOf), made when first asked for.
 */
export interface CachedUser {
  readonly row: PresentedUser;
  /** Its key in the organization's cache. */
  readonly key: string;
  readonly texts: (string | undefined)[];
}

export interface PresentOptions {
  clientGravatar: boolean;
  /** user_avatar_url_field_optional: a null avatar_url is left out. */
  avatarOptional: boolean;
}

/** Record separator between rows (never in a JSON text: control characters are escaped there). */
const ROW_SEPARATOR = '\u001e';
/** Between a row and its profile data in a key. */
const PROFILE_SEPARATOR = '\u001f';

/**
 * One database's cache. `byKey`: entries by key, per organization. The key is the row's JSON text
 * as the database writes it (every presented column) and, for users with custom profile data, that
 * data's JSON: anything that changes a user's presentation changes the key, so an entry never goes
 * stale and needs no invalidation, on this node or another; it is only dropped when no longer read.
 * What a presentation depends on besides the row (the viewer's right to the real email,
 * client_gravatar, user_avatar_url_field_optional) picks one of the entry's texts.
 *
 * `lists` (SQLite): the whole list as of a realm_user_versions counter (migration 028), which
 * triggers raise in the transaction of every change to the organization's users or profile data.
 * Read in the register's own snapshot, an equal counter means the same rows, so not even the rows
 * are read again.
 */
interface StoreCache {
  byKey: Map<number, Map<string, CachedUser>>;
  lists: Map<number, { version: number; users: CachedUser[] }>;
  entries: number;
}
const caches = new WeakMap<Store, StoreCache>();
/** Organizations' entries are dropped, least recently read first, beyond this many in all. */
const MAX_ENTRIES = 200_000;

const makeRow = rowMaker([...PRESENTED_USER_COLUMNS]) as (row: unknown[]) => PresentedUser;

/** Each row's JSON array text, [id, …] (rows in no particular order). */
async function rowTexts(tx: Tx, dialect: Dialect, realmId: number): Promise<string[]> {
  const cols = sql.join(PRESENTED_USER_COLUMNS.map((c) => sql.ref(c)));
  const agg =
    dialect === 'sqlite'
      ? sql<string | null>`group_concat(json_array(${cols}), ${ROW_SEPARATOR})`
      : sql<string | null>`string_agg(json_build_array(${cols})::text, ${ROW_SEPARATOR})`;
  const row = await tx.selectFrom('users').select(agg.as('rows')).where('realm_id', '=', realmId).executeTakeFirst();
  return row?.rows ? row.rows.split(ROW_SEPARATOR) : [];
}

const byId = (a: CachedUser, b: CachedUser) => a.row.id - b.row.id;

/** The organization's realm_user_versions counter (0 until its users first change). */
async function usersVersion(tx: Tx, realmId: number): Promise<number> {
  const { rows } = await sql<{ version: number }>`SELECT version FROM realm_user_versions WHERE realm_id = ${realmId}`.execute(tx);
  return rows.length ? Number(rows[0].version) : 0;
}

/**
 * The organization's users (every presented column), by ID, each with its cached texts, read in
 * the register's snapshot `tx` of `store`. `profiles` holds the custom profile data of the users
 * who have some. The list is shared: callers do not change it.
 */
export async function cachedUsers(store: Store, tx: Tx, realmId: number, profiles: Map<number, Record<string, unknown>>): Promise<readonly CachedUser[]> {
  let c = caches.get(store);
  if (!c) caches.set(store, (c = { byKey: new Map(), lists: new Map(), entries: 0 }));
  if (store.dialect !== 'sqlite') return byContent(c, tx, store.dialect, realmId, profiles);
  const version = await usersVersion(tx, realmId);
  const kept = c.lists.get(realmId);
  if (kept && kept.version === version) return kept.users;
  const users = await byContent(c, tx, store.dialect, realmId, profiles);
  c.lists.set(realmId, { version, users });
  return users;
}

async function byContent(c: StoreCache, tx: Tx, dialect: Dialect, realmId: number, profiles: Map<number, Record<string, unknown>>): Promise<CachedUser[]> {
  const texts = await rowTexts(tx, dialect, realmId);
  let cache = c.byKey.get(realmId);
  if (cache) c.byKey.delete(realmId);
  else cache = new Map();
  // Re-inserted: the map's order is the recency order eviction follows.
  c.byKey.set(realmId, cache);
  const out: CachedUser[] = new Array(texts.length);
  let ascending = true;
  for (let i = 0; i < texts.length; i++) {
    let key = texts[i];
    if (profiles.size) {
      // The text starts with the user's ID: "[12,".
      const profile = profiles.get(parseInt(key.slice(1), 10));
      if (profile) key += PROFILE_SEPARATOR + JSON.stringify(profile);
    }
    let e = cache.get(key);
    if (!e) {
      e = { row: makeRow(JSON.parse(texts[i]) as unknown[]), key, texts: [] };
      cache.set(key, e);
      c.entries++;
    }
    out[i] = e;
    if (i > 0 && out[i - 1].row.id > e.row.id) ascending = false;
  }
  if (!ascending) out.sort(byId);
  // Entries of changed or removed users stay behind: once they pile up, only this read's are kept.
  if (cache.size > 2 * out.length + 64) {
    c.entries -= cache.size;
    cache.clear();
    for (const e of out) cache.set(e.key, e);
    c.entries += cache.size;
  }
  evict(c, realmId);
  return out;
}

function evict(c: StoreCache, keep: number): void {
  for (const [realmId, cache] of c.byKey) {
    if (c.entries <= MAX_ENTRIES) return;
    if (realmId === keep) continue;
    c.entries -= cache.size;
    c.byKey.delete(realmId);
    c.lists.delete(realmId);
  }
}

/** The presentation variant: 3 bits, each a choice presentUser's output depends on besides the row. */
function variantOf(seesEmail: boolean, opts: PresentOptions): number {
  return (seesEmail ? 1 : 0) | (opts.clientGravatar ? 2 : 0) | (opts.avatarOptional ? 4 : 0);
}

/** The user's JSON object text for this viewer, as JSON.stringify(presentUser(…)) gives it. */
export function userJson(e: CachedUser, viewer: Pick<User, 'id' | 'role'> | null, opts: PresentOptions, profiles: Map<number, Record<string, unknown>>): string {
  const sees = canSeeDeliveryEmail(viewer, e.row);
  const v = variantOf(sees, opts);
  let text = e.texts[v];
  if (text === undefined) {
    const p = presentUser(e.row, { clientGravatar: opts.clientGravatar, canSeeDeliveryEmail: sees, profileData: profiles.get(e.row.id) });
    if (opts.avatarOptional && p.avatar_url === null) delete p.avatar_url;
    text = e.texts[v] = JSON.stringify(p);
  }
  return text;
}
