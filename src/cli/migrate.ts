// `parley migrate`: applies the schema migrations the database lacks (serve does it at start too).
import { Command } from 'commander';
import { Store } from '../store/store.js';
import { MIGRATION_NAMES } from '../store/migrate.js';
import { configOf, withServerOptions, type CliIO } from './common.js';

export function migrateCommand(io: CliIO): Command {
  return withServerOptions(new Command('migrate').description('apply pending schema migrations under the migration lock; prints {"applied":[…],"migrations":N}')).action(async (opts) => {
    const config = configOf(opts, io.env);
    const store = await Store.open({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolSize: 2 });
    try {
      io.print(JSON.stringify({ applied: store.appliedMigrations, migrations: MIGRATION_NAMES.length }));
    } finally {
      await store.close();
    }
    io.code = 0;
  });
}
