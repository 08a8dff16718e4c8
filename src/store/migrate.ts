// Applies the schema migrations in order, recording each applied one in parley_migrations.
import { sql, type Kysely } from 'kysely';
import type { Dialect } from './dialect.js';
import * as m001 from './migrations/001-core.js';
import * as m002 from './migrations/002-user-messages.js';
import * as m003 from './migrations/003-settings.js';
import * as m004 from './migrations/004-topics.js';
import * as m005 from './migrations/005-drafts.js';
import * as m006 from './migrations/006-reminders.js';
import * as m007 from './migrations/007-user-admin.js';
import * as m008 from './migrations/008-invitations.js';
import * as m009 from './migrations/009-bots.js';
import * as m010 from './migrations/010-uploads.js';
import * as m011 from './migrations/011-user-indexes.js';
import * as m012 from './migrations/012-search-merge.js';
import * as m013 from './migrations/013-subscription-user-active.js';
import * as m014 from './migrations/014-messages-recipient-topic.js';
import * as m015 from './migrations/015-web-sessions.js';
import * as m016 from './migrations/016-realm-exports.js';
import * as m017 from './migrations/017-channel-admin.js';
import * as m018 from './migrations/018-people.js';
import * as m019 from './migrations/019-messages-api.js';
import * as m021 from './migrations/021-email.js';
import * as m022 from './migrations/022-push-devices.js';
import * as m023 from './migrations/023-event-log.js';
import * as m025 from './migrations/025-api-rest.js';
import * as m027 from './migrations/027-mail-proxy.js';
import * as m028 from './migrations/028-realm-user-versions.js';
import * as m029 from './migrations/029-stored-files.js';
import * as m030 from './migrations/030-unread-versions.js';
import * as m031 from './migrations/031-can-create-users.js';

interface Migration {
  name: string;
  up(db: Kysely<unknown>, dialect: Dialect): Promise<void>;
}

const MIGRATIONS: Migration[] = [
  { name: '001-core', up: m001.up },
  { name: '002-user-messages', up: m002.up },
  { name: '003-settings', up: m003.up },
  { name: '004-topics', up: m004.up },
  { name: '005-drafts', up: m005.up },
  { name: '006-reminders', up: m006.up },
  { name: '007-user-admin', up: m007.up },
  { name: '008-invitations', up: m008.up },
  { name: '009-bots', up: m009.up },
  { name: '010-uploads', up: m010.up },
  { name: '011-user-indexes', up: m011.up },
  { name: '012-search-merge', up: m012.up },
  { name: '013-subscription-user-active', up: m013.up },
  { name: '014-messages-recipient-topic', up: m014.up },
  { name: '015-web-sessions', up: m015.up },
  { name: '016-realm-exports', up: m016.up },
  { name: '017-channel-admin', up: m017.up },
  { name: '018-people', up: m018.up },
  { name: '019-messages-api', up: m019.up },
  { name: '021-email', up: m021.up },
  { name: '022-push-devices', up: m022.up },
  { name: '023-event-log', up: m023.up },
  { name: '025-api-rest', up: m025.up },
  { name: '027-mail-proxy', up: m027.up },
  { name: '028-realm-user-versions', up: m028.up },
  { name: '029-stored-files', up: m029.up },
  { name: '030-unread-versions', up: m030.up },
  { name: '031-can-create-users', up: m031.up },
];

/** Key of the PostgreSQL advisory lock every node takes to apply a migration (any fixed number; "parl"). */
const MIGRATION_LOCK_KEY = 0x7061726c;

/**
 * Runs fn in a transaction that holds the database-wide migration lock, so nodes starting together
 * take turns: PostgreSQL, a transaction-scoped advisory lock; SQLite, BEGIN IMMEDIATE (the write
 * lock, taken before anything is read, waiting out the connection's busy timeout).
 */
async function underMigrationLock<T>(db: Kysely<unknown>, dialect: Dialect, fn: (conn: Kysely<unknown>) => Promise<T>): Promise<T> {
  return db.connection().execute(async (conn) => {
    await sql.raw(dialect === 'sqlite' ? 'BEGIN IMMEDIATE' : 'BEGIN').execute(conn);
    try {
      if (dialect === 'postgres') await sql`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK_KEY})`.execute(conn);
      const result = await fn(conn);
      await sql.raw('COMMIT').execute(conn);
      return result;
    } catch (err) {
      await sql.raw('ROLLBACK').execute(conn).catch(() => {});
      throw err;
    }
  });
}

async function appliedNames(db: Kysely<unknown>): Promise<Set<string>> {
  return new Set((await sql<{ name: string }>`SELECT name FROM parley_migrations`.execute(db)).rows.map((r) => r.name));
}

/** The migrations this code knows that the database has not recorded as applied (GET /readyz). */
export async function pendingMigrations(db: Kysely<unknown>): Promise<string[]> {
  const done = await appliedNames(db);
  return MIGRATIONS.filter((m) => !done.has(m.name)).map((m) => m.name);
}

/** The names of all migrations this version knows, in order. */
export const MIGRATION_NAMES = MIGRATIONS.map((m) => m.name);

/**
 * Applies the migrations this database lacks and returns their names (empty when it was current).
 * Safe when several nodes start at once: each migration runs under the migration lock after
 * checking again that no other node applied it meanwhile, and commits with its record, so a crash
 * never leaves one half-applied and none runs twice.
 */
export async function migrate(db: Kysely<unknown>, dialect: Dialect): Promise<string[]> {
  // null: no parley_migrations table yet (a new database).
  const appliedIfAny = async () => {
    try {
      return await appliedNames(db);
    } catch {
      return null;
    }
  };
  // The common case, a current database, takes no lock.
  const before = await appliedIfAny();
  if (before && MIGRATIONS.every((m) => before.has(m.name))) return [];
  if (!before) {
    await underMigrationLock(db, dialect, (conn) => sql`CREATE TABLE IF NOT EXISTS parley_migrations (name text PRIMARY KEY, applied_at integer NOT NULL)`.execute(conn));
  }
  const applied: string[] = [];
  for (const m of MIGRATIONS) {
    if (before?.has(m.name)) continue;
    const ran = await underMigrationLock(db, dialect, async (conn) => {
      if ((await appliedNames(conn)).has(m.name)) return false;
      await m.up(conn, dialect);
      await sql`INSERT INTO parley_migrations (name, applied_at) VALUES (${m.name}, ${Math.floor(Date.now() / 1000)})`.execute(conn);
      return true;
    });
    if (ran) applied.push(m.name);
  }
  return applied;
}
