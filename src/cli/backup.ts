// `parley backup PATH` and `parley restore PATH`: the whole database to one file and back.
import fs from 'node:fs';
import path from 'node:path';
import { Command } from 'commander';
import type { Config } from '../config.js';
import { Store } from '../store/store.js';
import { CommandError, configOf, withServerOptions, type CliIO } from './common.js';
import { progressBar } from './progress.js';
import { backupSqlite, restoreSqlite } from './backup-sqlite.js';
import { backupPostgres, restorePostgres } from './backup-postgres.js';

/** What a database holds, for the one JSON line backup and restore print. */
async function contents(config: Config): Promise<{ realms: number; users: number; messages: number }> {
  const store = await Store.open({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolSize: 1 });
  try {
    const count = async (table: 'realms' | 'users' | 'messages') => Number((await store.db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
    return { realms: await count('realms'), users: await count('users'), messages: await count('messages') };
  } finally {
    await store.close();
  }
}

export function backupCommand(io: CliIO): Command {
  return withServerOptions(
    new Command('backup')
      .description('copy the database into a new file while the server runs (SQLite: online backup API; PostgreSQL: pg_dump); prints {"backup","database","bytes"}')
      .argument('<path>', 'the backup file to create (must not exist)'),
  ).action(async (target: string, opts) => {
    const config = configOf(opts, io.env);
    const dest = path.resolve(target);
    if (fs.existsSync(dest)) throw new CommandError(`${dest} exists; choose a new file`);
    const progress = progressBar('backup');
    if (config.databaseUrl) await backupPostgres(config.databaseUrl, dest, progress);
    else await backupSqlite(config.dataDir, dest, progress);
    io.print(JSON.stringify({ backup: dest, database: config.databaseUrl ? 'postgres' : 'sqlite', bytes: fs.statSync(dest).size }));
    io.code = 0;
  });
}

export function restoreCommand(io: CliIO): Command {
  return withServerOptions(
    new Command('restore')
      .description('replace the database with a backup (stop the server first); prints {"restored","database","realms","users","messages"}')
      .argument('<path>', 'a file made by parley backup on the same kind of database')
      .option('--force', 'replace a database that already holds organizations'),
  ).action(async (source: string, opts) => {
    const config = configOf(opts, io.env);
    const file = path.resolve(source);
    if (!fs.existsSync(file)) throw new CommandError(`no backup at ${file}`);
    if (!opts.force) {
      const now = await contents(config);
      if (now.realms > 0) throw new CommandError(`the database already holds ${now.realms} organization(s); add --force to replace it`);
    }
    const progress = progressBar('restore');
    if (config.databaseUrl) await restorePostgres(file, config.databaseUrl, progress);
    else await restoreSqlite(file, config.dataDir, progress);
    // Opening the restored database also applies migrations a backup of an older version lacks.
    const after = await contents(config);
    io.print(JSON.stringify({ restored: file, database: config.databaseUrl ? 'postgres' : 'sqlite', ...after }));
    io.code = 0;
  });
}
