// The parley command line on commander: the commands, --help and --version, usage errors (exit 2).
import fs from 'node:fs';
import { Command, CommanderError } from 'commander';
import { ApiError } from '../core/api-error.js';
import type { CliIO } from './common.js';
import { serveCommand } from './serve.js';
import { createRealmCommand } from './create-realm.js';
import { createUserCommand } from './create-user.js';
import { grantPermissionCommand } from './grant-permission.js';
import { changePasswordCommand } from './change-password.js';
import { listRealmsCommand } from './list-realms.js';
import { listUsersCommand } from './list-users.js';
import { migrateCommand } from './migrate.js';
import { backupCommand, restoreCommand } from './backup.js';
import { exportCommand, importCommand } from './import-export.js';

/** Exit code of a usage error (unknown flag or command, missing value), as POSIX utilities use. */
export const USAGE_ERROR = 2;

function packageVersion(): string {
  // dist/src/cli/program.js → the package root.
  const pkg = JSON.parse(fs.readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

function buildProgram(io: CliIO, err: (s: string) => void, onTerminal: boolean): Command {
  const program = new Command('parley')
    .description('Parley, a self-hosted team-chat server. Settings: flags, then PARLEY_* variables, then the config file (--config, PARLEY_CONFIG or ./parley.toml).')
    .version(packageVersion(), '-V, --version', 'print the version')
    .helpCommand(true)
    .showSuggestionAfterError(true);
  for (const cmd of [serveCommand(io, onTerminal), createRealmCommand(io), createUserCommand(io), changePasswordCommand(io), grantPermissionCommand(io), listRealmsCommand(io), listUsersCommand(io), migrateCommand(io), backupCommand(io), restoreCommand(io), importCommand(io), exportCommand(io)]) {
    program.addCommand(cmd);
  }
  // Every command throws instead of exiting, and writes help to the caller's output.
  const configure = (cmd: Command) => {
    cmd.exitOverride().configureOutput({ writeOut: (s) => io.print(s.replace(/\n$/, '')), writeErr: err });
    cmd.commands.forEach(configure);
  };
  configure(program);
  return program;
}

/**
 * Runs the command line and returns its exit code: 0 done, 1 the command failed, 2 a usage error,
 * -1 the server keeps running. print receives output lines (one JSON line for data commands).
 */
export async function runCli(
  argv: string[],
  print: (s: string) => void = (s) => process.stdout.write(s + '\n'),
  opts: { env?: Record<string, string | undefined>; stderr?: (s: string) => void } = {},
): Promise<number> {
  const err = opts.stderr ?? ((s: string) => process.stderr.write(s));
  const io: CliIO = { print, env: opts.env ?? process.env, code: 0 };
  const program = buildProgram(io, err, !!process.stdout.isTTY);
  if (argv.length === 0) {
    err(program.helpInformation());
    return USAGE_ERROR;
  }
  try {
    await program.parseAsync(argv, { from: 'user' });
    return io.code;
  } catch (e) {
    if (e instanceof CommanderError) {
      // --help, --version and `help` end here too, with exit code 0.
      return e.exitCode === 0 ? 0 : USAGE_ERROR;
    }
    const msg = e instanceof ApiError || e instanceof Error ? e.message : String(e);
    err(`parley ${argv[0]}: ${msg}\n`);
    return 1;
  }
}
