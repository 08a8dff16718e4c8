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
import * as m014 from './migrations/014-realm-exports.js';

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
  { name: '014-realm-exports', up: m014.up },
];

export async function migrate(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await sql`CREATE TABLE IF NOT EXISTS parley_migrations (name text PRIMARY KEY, applied_at integer NOT NULL)`.execute(db);
  const done = new Set(
    (await sql<{ name: string }>`SELECT name FROM parley_migrations`.execute(db)).rows.map((r) => r.name),
  );
  for (const m of MIGRATIONS) {
    if (done.has(m.name)) continue;
    // Each migration and its record commit together, so a crash never leaves one half-applied.
    await db.transaction().execute(async (tx) => {
      await m.up(tx, dialect);
      await sql`INSERT INTO parley_migrations (name, applied_at) VALUES (${m.name}, ${Math.floor(Date.now() / 1000)})`.execute(tx);
    });
  }
}
