// Starts a real Parley server for a test file (SQLite in a temp dir, or a fresh PostgreSQL database)
// and gives typed API clients for its users.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import http from 'node:http';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { loadConfig, type Config } from '../../src/config.js';
import { startServer, type RunningServer } from '../../src/main.js';
import { doCreateRealm } from '../../src/actions/realms.js';
import { doCreateUser } from '../../src/actions/users.js';
import type { Realm } from '../../src/store/schema.js';
import type { Clock } from '../../src/context.js';
import { createLogger } from '../../src/ops/logger.js';
import type { DestinationStream } from 'pino';
import { conformanceOn, unexplainedFields } from './conformance.js';

/** Base URL of the PostgreSQL server when the suite runs on PostgreSQL (set by scripts/test.mjs). */
/** PARLEY_CONFORMANCE_LOG=file: fields the reference does not define are written there instead of failing the request (to survey them). */
const CONFORMANCE_LOG = process.env.PARLEY_CONFORMANCE_LOG ?? '';

const PG_BASE = process.env.PARLEY_TEST_PG_URL ?? '';

export interface ApiResponse {
  status: number;
  body: Record<string, any>;
  headers: http.IncomingHttpHeaders;
}

export type ParamValue = string | number | boolean | null | object | undefined;

export function encodeParams(params: Record<string, ParamValue>): string {
  const u = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v === undefined) continue;
    u.set(k, typeof v === 'string' ? v : JSON.stringify(v));
  }
  return u.toString();
}

export interface RequestOptions {
  /** Where parameters go: the URL-encoded body (default for non-GET), the query string, or multipart. */
  as?: 'form' | 'query' | 'multipart';
  host?: string;
  auth?: { email: string; apiKey: string } | null;
  rawBody?: string;
  headers?: Record<string, string>;
}

export function request(baseUrl: string, method: string, apiPath: string, params: Record<string, ParamValue> = {}, opts: RequestOptions = {}): Promise<ApiResponse> {
  const url = new URL(baseUrl);
  const as = opts.as ?? (method === 'GET' ? 'query' : 'form');
  let reqPath = `/api/v1/${apiPath.replace(/^\//, '')}`;
  let body: Buffer | undefined;
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  if (opts.host) headers.host = opts.host;
  if (opts.auth) headers.authorization = 'Basic ' + Buffer.from(`${opts.auth.email}:${opts.auth.apiKey}`).toString('base64');
  const encoded = encodeParams(params);
  if (opts.rawBody !== undefined) {
    body = Buffer.from(opts.rawBody);
  } else if (as === 'query') {
    if (encoded) reqPath += (reqPath.includes('?') ? '&' : '?') + encoded;
  } else if (as === 'form') {
    body = Buffer.from(encoded);
    headers['content-type'] = 'application/x-www-form-urlencoded';
  } else {
    const boundary = '----parley' + randomBytes(8).toString('hex');
    const parts: Buffer[] = [];
    for (const [k, v] of Object.entries(params)) {
      if (v === undefined) continue;
      const value = typeof v === 'string' ? v : JSON.stringify(v);
      parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${value}\r\n`));
    }
    parts.push(Buffer.from(`--${boundary}--\r\n`));
    body = Buffer.concat(parts);
    headers['content-type'] = `multipart/form-data; boundary=${boundary}`;
  }
  if (body) headers['content-length'] = String(body.length);
  return new Promise((resolve, reject) => {
    const req = http.request({ hostname: url.hostname, port: url.port, method, path: reqPath, headers, agent: keepAlive }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let parsed: Record<string, any>;
        try {
          parsed = JSON.parse(text) as Record<string, any>;
        } catch {
          parsed = { __raw: text };
        }
        // Every success the suite observes has only fields the reference defines (or docs/decisions.md explains).
        const extra = conformanceOn && opts.rawBody === undefined ? unexplainedFields(method, apiPath, parsed) : [];
        if (extra.length && CONFORMANCE_LOG) fs.appendFileSync(CONFORMANCE_LOG, extra.join('\n') + '\n');
        if (extra.length && !CONFORMANCE_LOG) reject(new Error(`fields the reference does not define: ${extra.join(', ')}`));
        else resolve({ status: res.statusCode ?? 0, body: parsed, headers: res.headers });
      });
    });
    req.on('error', reject);
    if (body) req.write(body);
    req.end();
  });
}

let keepAlive = new http.Agent({ keepAlive: true, maxSockets: 64 });

/** Drops pooled connections (after a server restart they are dead). */
export function resetConnections(): void {
  keepAlive.destroy();
  keepAlive = new http.Agent({ keepAlive: true, maxSockets: 64 });
}

export class Client {
  constructor(
    readonly server: TestServer,
    readonly userId: number,
    readonly email: string,
    readonly apiKey: string,
    readonly host?: string,
  ) {}

  api(method: string, apiPath: string, params: Record<string, ParamValue> = {}, opts: RequestOptions = {}): Promise<ApiResponse> {
    return request(this.server.url, method, apiPath, params, { host: this.host, auth: { email: this.email, apiKey: this.apiKey }, ...opts });
  }

  get = (p: string, params: Record<string, ParamValue> = {}, o: RequestOptions = {}) => this.api('GET', p, params, o);
  post = (p: string, params: Record<string, ParamValue> = {}, o: RequestOptions = {}) => this.api('POST', p, params, o);
  patch = (p: string, params: Record<string, ParamValue> = {}, o: RequestOptions = {}) => this.api('PATCH', p, params, o);
  delete = (p: string, params: Record<string, ParamValue> = {}, o: RequestOptions = {}) => this.api('DELETE', p, params, o);

  /** Calls the API and fails the test unless it succeeded; returns the body. */
  async ok(method: string, apiPath: string, params: Record<string, ParamValue> = {}, opts: RequestOptions = {}): Promise<Record<string, any>> {
    const r = await this.api(method, apiPath, params, opts);
    if (r.status !== 200 || r.body.result !== 'success') {
      throw new Error(`${method} ${apiPath} failed: ${r.status} ${JSON.stringify(r.body)}`);
    }
    return r.body;
  }
}

export interface TestServer {
  running: RunningServer;
  url: string;
  realm: Realm;
  owner: Client;
  dialect: 'sqlite' | 'postgres';
  /** Creates a user (role 400 by default) in the default realm and returns its client. */
  user(name: string, role?: number, opts?: { realm?: Realm; host?: string }): Promise<Client>;
  /** Creates another organization with its owner. */
  realm2(subdomain: string): Promise<{ realm: Realm; owner: Client; host: string }>;
  /** Stops the server and starts it again on the same port and storage; whileDown runs in between. */
  restart(whileDown?: () => Promise<unknown>): Promise<void>;
  /** Starts another node on the same database with the given overrides (multi-node tests). */
  peer(overrides: Partial<Config>): Promise<RunningServer>;
  close(): Promise<void>;
}

let counter = 0;

/**
 * Test databases commit without waiting for the WAL to reach the disk: what a commit makes visible
 * to other sessions is the same, PostgreSQL itself is never crashed by a test, and the suite's
 * thousands of small commits no longer each wait for an fsync. PARLEY_TEST_PG_SYNC=1 keeps the default.
 */
export const TEST_PG_SESSION_OPTIONS = process.env.PARLEY_TEST_PG_SYNC === '1' ? '' : `?options=${encodeURIComponent('-c synchronous_commit=off')}`;

/**
 * logStream: receives the server's log lines (JSON, one per write) at its configured level;
 * without it only errors are logged, to stderr.
 *
 * Tests send hundreds of requests a second as one user from one address: the rate limits stay on
 * (every request is counted and answered with its headers) with allowances no test reaches unless
 * it sets its own.
 */
export const TEST_RATE_LIMITS: Record<string, string> = {
  PARLEY_RATE_LIMIT_API: '1000000/60',
  PARLEY_RATE_LIMIT_UNAUTHENTICATED: '1000000/60',
  PARLEY_RATE_LIMIT_AUTHENTICATION: '1000000/60',
};

export async function startTestServer(opts: { clock?: Clock; env?: Record<string, string>; logStream?: DestinationStream } = {}): Promise<TestServer> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-test-'));
  let databaseUrl = '';
  let dbName = '';
  if (PG_BASE) {
    dbName = `parley_t_${process.pid}_${++counter}_${randomBytes(3).toString('hex')}`;
    const admin = new pg.Client({ connectionString: `${PG_BASE}/postgres` });
    await admin.connect();
    // A copy of the pass's migrated template (scripts/test.mjs makes one) spares every server the migrations.
    const template = process.env.PARLEY_TEST_PG_TEMPLATE;
    await admin.query(`CREATE DATABASE ${dbName}${template ? ` TEMPLATE ${template}` : ''}`);
    await admin.end();
    databaseUrl = `${PG_BASE}/${dbName}${TEST_PG_SESSION_OPTIONS}`;
  } else if (process.env.PARLEY_TEST_SQLITE_TEMPLATE) {
    const template = process.env.PARLEY_TEST_SQLITE_TEMPLATE;
    for (const f of fs.readdirSync(template)) if (f.startsWith('parley.sqlite3')) fs.copyFileSync(path.join(template, f), path.join(dataDir, f));
  }
  const config = loadConfig({ port: '0', 'data-dir': dataDir, 'database-url': databaseUrl, 'external-url': 'http://localhost' }, { ...TEST_RATE_LIMITS, ...(opts.env ?? {}) });
  const logger = createLogger(opts.logStream ? { level: config.logLevel, destination: opts.logStream } : { level: 'error', destination: process.stderr });
  let running = await startServer(config, { clock: opts.clock, logger });
  const { realm, owner } = await doCreateRealm(running.app, { name: 'Test Org', subdomain: '', ownerEmail: 'owner@example.com', ownerName: 'Olivia Owner', ownerPassword: 'owner-password' });

  const ts: TestServer = {
    running,
    url: running.url,
    realm,
    owner: undefined as unknown as Client,
    dialect: databaseUrl ? 'postgres' : 'sqlite',
    async user(name, role = 400, o = {}) {
      const r = o.realm ?? realm;
      const local = name.toLowerCase().replace(/[^a-z0-9]+/g, '.');
      const u = await doCreateUser(ts.running.app, r, { email: `${local}@example.com`, fullName: name, password: `${local}-password`, role });
      return new Client(ts, u.id, u.email, u.api_key, o.host);
    },
    async realm2(subdomain) {
      const created = await doCreateRealm(ts.running.app, { name: `Org ${subdomain}`, subdomain, ownerEmail: `owner@${subdomain}.example.com`, ownerName: `Owner ${subdomain}`, ownerPassword: 'pw-' + subdomain });
      const host = `${subdomain}.localhost`;
      return { realm: created.realm, owner: new Client(ts, created.owner.id, created.owner.email, created.owner.api_key, host), host };
    },
    async peer(overrides) {
      const peerDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-peer-'));
      return startServer({ ...config, dataDir: peerDir, port: 0, ...overrides }, { clock: opts.clock, logger });
    },
    async restart(whileDown) {
      await ts.running.close();
      resetConnections();
      if (whileDown) await whileDown();
      running = await startServer({ ...config, port: Number(new URL(ts.url).port) }, { clock: opts.clock, logger });
      ts.running = running;
    },
    async close() {
      await ts.running.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
      if (dbName) {
        const admin = new pg.Client({ connectionString: `${PG_BASE}/postgres` });
        await admin.connect();
        await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
        await admin.end();
      }
    },
  };
  ts.owner = new Client(ts, owner.id, owner.email, owner.api_key);
  return ts;
}
