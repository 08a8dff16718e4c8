// The `parley` command line: serve, create-realm, create-user. Output of the create commands is one JSON line.
import { randomBytes } from 'node:crypto';
import { loadConfig, type Config } from './config.js';
import { openApp, startServer } from './main.js';
import { doCreateRealm } from './actions/realms.js';
import { doCreateUser } from './actions/users.js';
import { realmUrl } from './lib/state/realm.js';
import { ROLE_CODES, Role } from './models/roles.js';
import { ApiError } from './core/api-error.js';
import type { AppContext } from './context.js';

const USAGE = `usage:
  parley serve [--host 127.0.0.1] [--port 9991] [--data-dir ./data] [--database-url postgres://…] [--external-url URL]
  parley create-realm --name NAME --owner-email EMAIL --owner-name NAME --owner-password PW [--subdomain S]
  parley create-user --realm SUBDOMAIN --email EMAIL --name NAME --password PW [--role N]
Every command also takes --data-dir and --database-url; PARLEY_* environment variables set the defaults.`;

function parseFlags(args: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (!a.startsWith('--')) throw new Error(`unexpected argument "${a}"`);
    const eq = a.indexOf('=');
    if (eq > 0) out[a.slice(2, eq)] = a.slice(eq + 1);
    else {
      const v = args[i + 1];
      if (v === undefined || v.startsWith('--')) throw new Error(`flag ${a} needs a value`);
      out[a.slice(2)] = v;
      i++;
    }
  }
  return out;
}

function required(flags: Record<string, string>, name: string): string {
  const v = flags[name];
  if (v === undefined || v === '') throw new Error(`missing --${name}`);
  return v;
}

async function withApp<T>(config: Config, fn: (app: AppContext) => Promise<T>): Promise<T> {
  const app = await openApp(config);
  try {
    return await fn(app);
  } finally {
    app.search.stop();
    await app.bus.close();
    await app.store.close();
  }
}

/** On an empty database, creates the first organization and prints how to log in. */
async function bootstrapIfEmpty(app: AppContext, print: (s: string) => void): Promise<void> {
  const any = await app.store.db.selectFrom('realms').select('id').limit(1).executeTakeFirst();
  if (any) return;
  const password = randomBytes(12).toString('base64url');
  const email = 'owner@example.com';
  const { realm, owner } = await doCreateRealm(app, { name: 'Parley', subdomain: '', ownerEmail: email, ownerName: 'Owner', ownerPassword: password });
  print(
    [
      '',
      'Created a first organization.',
      `  URL:      ${realmUrl(app.config.externalUrl, realm.string_id)}`,
      `  Email:    ${owner.email}`,
      `  Password: ${password}`,
      `  API key:  ${owner.api_key}`,
      'This is shown only once; keep it somewhere safe.',
      '',
    ].join('\n'),
  );
}

export async function runCli(argv: string[], print: (s: string) => void = (s) => process.stdout.write(s + '\n')): Promise<number> {
  const [command, ...rest] = argv;
  try {
    if (!command || command === '--help' || command === 'help') {
      print(USAGE);
      return command ? 0 : 2;
    }
    const flags = parseFlags(rest);
    const config = loadConfig(flags);
    switch (command) {
      case 'serve': {
        if (config.bootstrap) await withApp(config, (app) => bootstrapIfEmpty(app, print));
        const server = await startServer(config);
        print(`Parley is listening on ${server.url} (data: ${config.databaseUrl ? 'PostgreSQL' : config.dataDir})`);
        const stop = async () => {
          await server.close();
          process.exit(0);
        };
        process.once('SIGINT', () => void stop());
        process.once('SIGTERM', () => void stop());
        return -1;
      }
      case 'create-realm': {
        const out = await withApp(config, async (app) => {
          const { realm, owner } = await doCreateRealm(app, {
            name: required(flags, 'name'),
            subdomain: flags.subdomain ?? '',
            ownerEmail: required(flags, 'owner-email'),
            ownerName: required(flags, 'owner-name'),
            ownerPassword: required(flags, 'owner-password'),
          });
          return { realm_id: realm.id, realm_url: realmUrl(config.externalUrl, realm.string_id), user_id: owner.id, email: owner.email, api_key: owner.api_key };
        });
        print(JSON.stringify(out));
        return 0;
      }
      case 'create-user': {
        const role = flags.role === undefined ? Role.MEMBER : Number(flags.role);
        if (!ROLE_CODES.includes(role)) throw new Error(`--role must be one of ${ROLE_CODES.join(', ')}`);
        const out = await withApp(config, async (app) => {
          const subdomain = required(flags, 'realm');
          const realm = await app.caches.realmBySubdomain(subdomain === '""' ? '' : subdomain);
          if (!realm) throw new Error(`no organization with subdomain "${subdomain}"`);
          const user = await doCreateUser(app, realm, { email: required(flags, 'email'), fullName: required(flags, 'name'), password: required(flags, 'password'), role });
          return { realm_id: realm.id, realm_url: realmUrl(config.externalUrl, realm.string_id), user_id: user.id, email: user.email, api_key: user.api_key };
        });
        print(JSON.stringify(out));
        return 0;
      }
      default:
        print(USAGE);
        return 2;
    }
  } catch (err) {
    const msg = err instanceof ApiError || err instanceof Error ? err.message : String(err);
    process.stderr.write(`parley ${command}: ${msg}\n`);
    return 1;
  }
}
