// The optional config file (parley.toml or .json): its settings stand below flags and PARLEY_* variables.
import fs from 'node:fs';
import path from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { loadConfig, type Config } from './config.js';

type Env = Record<string, string | undefined>;

/** Looked for in the working directory when neither --config nor PARLEY_CONFIG names a file. */
export const DEFAULT_CONFIG_FILE = 'parley.toml';

/** The file to read: --config, then PARLEY_CONFIG, then ./parley.toml when it exists; null for none. */
export function configFilePath(flag: string | undefined, env: Env): string | null {
  const named = flag ?? env.PARLEY_CONFIG;
  if (named) return path.resolve(named);
  const fallback = path.resolve(DEFAULT_CONFIG_FILE);
  return fs.existsSync(fallback) ? fallback : null;
}

/**
 * The file's settings as the PARLEY_* variables they stand for: key `port` is PARLEY_PORT,
 * `database_url` is PARLEY_DATABASE_URL. Booleans become "1"/"0", tables and arrays JSON
 * (PARLEY_JWT_KEYS takes a JSON object).
 */
export function readConfigFile(file: string): Env {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new Error(`cannot read config file ${file}: ${(err as Error).message}`, { cause: err });
  }
  let data: unknown;
  try {
    data = file.endsWith('.json') ? JSON.parse(text) : parseToml(text);
  } catch (err) {
    throw new Error(`config file ${file} is not valid ${file.endsWith('.json') ? 'JSON' : 'TOML'}: ${(err as Error).message}`, { cause: err });
  }
  if (!data || typeof data !== 'object' || Array.isArray(data)) throw new Error(`config file ${file} must hold a table of settings`);
  const out: Env = {};
  for (const [key, value] of Object.entries(data)) {
    if (!/^[a-z][a-z0-9_]*$/.test(key)) throw new Error(`config file ${file}: setting "${key}" must be lower_snake_case (e.g. data_dir)`);
    const name = 'PARLEY_' + key.toUpperCase();
    if (typeof value === 'string') out[name] = value;
    else if (typeof value === 'boolean') out[name] = value ? '1' : '0';
    else if (typeof value === 'number' || typeof value === 'bigint') out[name] = String(value);
    else out[name] = JSON.stringify(value);
  }
  return out;
}

/** Every PARLEY_* variable loadConfig reads, found by letting it read an empty environment. */
function knownVariables(): Set<string> {
  const read = new Set<string>();
  const probe = new Proxy({} as Env, {
    get(_target, key) {
      if (typeof key === 'string') read.add(key);
      return undefined;
    },
  });
  loadConfig({}, probe);
  return read;
}

/**
 * The configuration from flags, then PARLEY_* variables, then the config file, then defaults.
 * A file setting no variable stands for is an error, so a misspelt key is never silently ignored.
 */
export function resolveConfig(flags: Record<string, string | undefined>, env: Env = process.env): Config {
  const file = configFilePath(flags.config, env);
  const fromFile = file ? readConfigFile(file) : {};
  const known = knownVariables();
  const unknown = Object.keys(fromFile).filter((name) => !known.has(name));
  if (unknown.length) {
    const keys = unknown.map((n) => n.slice('PARLEY_'.length).toLowerCase());
    throw new Error(`config file ${file}: unknown setting${keys.length > 1 ? 's' : ''} ${keys.join(', ')}`);
  }
  return loadConfig(flags, { ...fromFile, ...env });
}
