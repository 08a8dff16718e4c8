// What the parley commands share: the server options, the configuration they resolve to, an opened app.
import { InvalidArgumentError, type Command } from 'commander';
import { resolveConfig } from '../config-file.js';
import type { Config } from '../config.js';
import { openApp } from '../main.js';
import type { AppContext } from '../context.js';
import type { Realm } from '../store/schema.js';
import { ROLE_CODES, Role } from '../models/roles.js';
import { realmUrl } from '../lib/state/realm.js';

type Env = Record<string, string | undefined>;

/** Where a command writes its output line, and the environment it reads PARLEY_* variables from. */
export interface CliIO {
  print: (line: string) => void;
  env: Env;
  /** Set by a command's action: the process exit code (-1: keep running, as serve does). */
  code: number;
}

/** A failure of the command's own work (not of its usage): exit code 1. */
export class CommandError extends Error {}

/** The options every command takes, so create-* and list-* read the same configuration as serve. */
export function withServerOptions(cmd: Command): Command {
  return cmd
    .option('--config <path>', 'config file, TOML or JSON (also PARLEY_CONFIG; default ./parley.toml when present)')
    .option('--data-dir <dir>', 'SQLite file, saved event queues, mail outbox (PARLEY_DATA_DIR; default ./data)')
    .option('--database-url <url>', 'postgres://user@host:port/db to use PostgreSQL (PARLEY_DATABASE_URL)')
    .option('--external-url <url>', 'public base URL; organizations live on its subdomains (PARLEY_EXTERNAL_URL)')
    .option('--host <address>', 'address the server listens on (PARLEY_HOST; default 127.0.0.1)')
    .option('--port <n>', 'port the server listens on (PARLEY_PORT; default 9991)', portNumber)
    .option('--bus-url <url>', 'nats://host:4222 to share events between nodes (PARLEY_BUS_URL; default local)')
    .option('--node-id <id>', "this node's name, prefix of its event queue IDs (PARLEY_NODE_ID; default n1)")
    .option('--file-store <local|database>', 'where uploads, avatars, emoji and exports live: the data directory, or the database for several nodes (PARLEY_FILE_STORE; default local)', fileStore);
}

function fileStore(value: string): string {
  if (value !== 'local' && value !== 'database') throw new InvalidArgumentError('expected local or database.');
  return value;
}

function portNumber(value: string): string {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new InvalidArgumentError('expected a port number from 0 to 65535.');
  return value;
}

/** A role code (100…600) or its name, as `--role 400` or `--role member`. */
export function roleCode(value: string): number {
  const byName: Record<string, number> = { owner: Role.OWNER, administrator: Role.ADMINISTRATOR, admin: Role.ADMINISTRATOR, moderator: Role.MODERATOR, member: Role.MEMBER, guest: Role.GUEST };
  const code = byName[value.toLowerCase()] ?? Number(value);
  if (!ROLE_CODES.includes(code)) throw new InvalidArgumentError(`expected one of ${ROLE_CODES.join(', ')} (or owner, administrator, moderator, member, guest).`);
  return code;
}

/** The configuration of these options: flags, then PARLEY_* variables, then the config file. */
export function configOf(opts: Record<string, unknown>, env: Env): Config {
  const s = (v: unknown) => (typeof v === 'string' ? v : undefined);
  return resolveConfig(
    {
      config: s(opts.config),
      'data-dir': s(opts.dataDir),
      'database-url': s(opts.databaseUrl),
      'external-url': s(opts.externalUrl),
      host: s(opts.host),
      port: s(opts.port),
      'bus-url': s(opts.busUrl),
      'node-id': s(opts.nodeId),
      'file-store': s(opts.fileStore),
      bootstrap: s(opts.bootstrap),
      'log-level': s(opts.logLevel),
      metrics: s(opts.metrics),
      'email-gateway-listen': s(opts.emailGatewayListen),
    },
    env,
  );
}

/** Opens the app for one command and closes it after, whatever happens. */
export async function withApp<T>(config: Config, fn: (app: AppContext) => Promise<T>): Promise<T> {
  const app = await openApp(config);
  try {
    return await fn(app);
  } finally {
    app.search.stop();
    await app.bus.close();
    await app.rateLimits.close();
    await app.store.close();
  }
}

/**
 * The organization named by --realm: its subdomain, "" for the root organization (the one made on
 * first start). The literal '""', which older instructions used to get an empty value through a
 * shell, means the root organization too.
 */
export async function realmNamed(app: AppContext, subdomain: string): Promise<Realm> {
  const wanted = subdomain === '""' || subdomain === "''" ? '' : subdomain;
  const realm = await app.caches.realmBySubdomain(wanted);
  if (!realm) throw new CommandError(wanted ? `no organization with subdomain "${wanted}"` : 'there is no root organization yet (start the server once, or create-realm without --subdomain)');
  return realm;
}

export const urlOf = (config: Config, realm: Realm): string => realmUrl(config.externalUrl, realm.string_id);
