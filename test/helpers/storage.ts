// Fresh storage for tests that start their own server processes, and starting `parley serve`.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { Store } from '../../src/store/store.js';
import { TEST_PG_SESSION_OPTIONS, TEST_RATE_LIMITS } from './server.js';

const PG_BASE = process.env.PARLEY_TEST_PG_URL ?? '';

export interface FreshStorage {
  args: string[];
  env: Record<string, string>;
  cleanup: () => Promise<void>;
}

/** A Store on fresh storage of the suite's database, and how to close it and remove the storage. */
export async function openFreshStore(): Promise<{ store: Store; close: () => Promise<void> }> {
  const st = await freshStorage();
  const store = await Store.open({ databaseUrl: st.env.PARLEY_DATABASE_URL ?? '', dataDir: st.env.PARLEY_DATA_DIR });
  return {
    store,
    close: async () => {
      await store.close();
      await st.cleanup();
    },
  };
}

/** A fresh data directory, plus a fresh PostgreSQL database when the suite runs on PostgreSQL. */
export async function freshStorage(): Promise<FreshStorage> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-cli-'));
  if (!PG_BASE) return { args: ['--data-dir', dir], env: { PARLEY_DATA_DIR: dir }, cleanup: async () => fs.rmSync(dir, { recursive: true, force: true }) };
  const name = `parley_cli_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: `${PG_BASE}/postgres` });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = `${PG_BASE}/${name}${TEST_PG_SESSION_OPTIONS}`;
  return {
    args: ['--data-dir', dir, '--database-url', url],
    env: { PARLEY_DATA_DIR: dir, PARLEY_DATABASE_URL: url },
    cleanup: async () => {
      fs.rmSync(dir, { recursive: true, force: true });
      const a = new pg.Client({ connectionString: `${PG_BASE}/postgres` });
      await a.connect();
      await a.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await a.end();
    },
  };
}


export interface ServeProcess {
  out: string;
  url: string;
  pid: number;
  stop: () => Promise<void>;
  kill9: () => Promise<void>;
}

/**
 * Starts `parley serve` on a free port (or the given extra arguments' port) and resolves once it
 * listens; out holds its output, plus the first owner's login file when it wrote one.
 */
export function startServeProcess(root: string, st: FreshStorage, extraArgs: string[] = ['--port', '0'], env: Record<string, string> = {}, cwd?: string): Promise<ServeProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(root, 'bin/parley.js'), 'serve', ...extraArgs, ...st.args], { env: { ...process.env, ...TEST_RATE_LIMITS, ...st.env, ...env }, cwd });
    let out = '';
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    // A server that dies before listening fails the start at once, with its output.
    child.once('exit', (code) => reject(new Error(`serve exited (${code}) before listening: ${out}`)));
    const timer = setTimeout(() => reject(new Error('serve did not start: ' + out)), 20000);
    child.stdout.on('data', (d) => {
      out += d;
      const m = /listening on (http:\/\/[^\s]+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        // Not on a terminal, serve writes the first owner's login to a file and names it.
        const loginFile = /login is in (\S+) \(/.exec(out)?.[1];
        if (loginFile) out += fs.readFileSync(loginFile, 'utf8');
        resolve({
          out,
          url: m[1],
          pid: child.pid!,
          stop: async () => {
            child.kill('SIGTERM');
            await exited;
          },
          kill9: async () => {
            child.kill('SIGKILL');
            await exited;
          },
        });
      }
    });
    child.stderr.on('data', (d) => (out += d));
  });
}
