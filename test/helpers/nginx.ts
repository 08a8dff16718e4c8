// Runs Debian's nginx for a test: a site file from deploy/ made local (ports, a fresh self-signed
// certificate, the upstream addresses), a private prefix, and HTTPS requests through it.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import https from 'node:https';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { freePort } from './cli.js';

export const NGINX = ['/usr/sbin/nginx', '/usr/local/sbin/nginx', '/usr/bin/nginx'].find((p) => fs.existsSync(p));
const OPENSSL = spawnSync('openssl', ['version']).status === 0;
/** Why nginx tests cannot run here, or '' (CI must have both). */
export const nginxMissing = !NGINX ? 'nginx is not installed (Debian: nginx-light)' : !OPENSSL ? 'openssl is not installed' : '';

export interface RunningNginx {
  /** The HTTPS port. */
  port: number;
  prefix: string;
  /** nginx -t's output. */
  checked: string;
  /** Lines of the access log: "upstream-address request-line status". */
  accessLog(): string[];
  stop(): Promise<void>;
}

async function otherFreePort(taken: number): Promise<number> {
  for (;;) {
    const p = await freePort();
    if (p !== taken) return p;
  }
}

/**
 * Starts nginx with a sample site from deploy/, rewritten to listen on local ports with a fresh
 * certificate and to proxy to the given upstream ports (the sample's `server …:9991` lines, in order).
 */
export async function startNginx(sample: string, upstreamPorts: number[]): Promise<RunningNginx> {
  const prefix = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-nginx-'));
  const cert = spawnSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=chat.example.com', '-addext', 'subjectAltName=DNS:chat.example.com,DNS:*.chat.example.com', '-keyout', `${prefix}/key.pem`, '-out', `${prefix}/cert.pem`], { encoding: 'utf8' });
  assert.equal(cert.status, 0, cert.stderr);
  const port = await freePort();
  const httpPort = await otherFreePort(port);
  let i = 0;
  const site = sample
    .replace(/server [\w.]+:9991\b/g, () => `server 127.0.0.1:${upstreamPorts[i++]}`)
    .replace(/^\s*listen \[::\]:\d+.*\n/gm, '')
    .replace(/listen 80;/, `listen 127.0.0.1:${httpPort};`)
    .replace(/listen 443 ssl http2;/, `listen 127.0.0.1:${port} ssl http2;`)
    .replace(/ssl_certificate\s+\S+;/, `ssl_certificate ${prefix}/cert.pem;`)
    .replace(/ssl_certificate_key\s+\S+;/, `ssl_certificate_key ${prefix}/key.pem;`);
  // Each rewrite must have found its line, or the test would exercise something else than the sample.
  assert.equal(i, upstreamPorts.length, 'one upstream server line per port');
  for (const expected of [...upstreamPorts.map((p) => `server 127.0.0.1:${p}`), `127.0.0.1:${port} ssl`, `${prefix}/cert.pem`, `${prefix}/key.pem`]) assert.ok(site.includes(expected), expected);
  fs.writeFileSync(path.join(prefix, 'parley-site.conf'), site);
  fs.writeFileSync(
    path.join(prefix, 'nginx.conf'),
    [
      'daemon off;',
      'worker_processes 1;',
      `pid ${prefix}/nginx.pid;`,
      `error_log ${prefix}/error.log warn;`,
      'events { worker_connections 256; }',
      'http {',
      "  log_format upstreams '$upstream_addr \"$request\" $status';",
      `  access_log ${prefix}/access.log upstreams;`,
      ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((t) => `  ${t}_temp_path ${prefix}/${t};`),
      `  include ${prefix}/parley-site.conf;`,
      '}',
      '',
    ].join('\n'),
  );
  const args = ['-p', prefix, '-e', `${prefix}/error.log`, '-c', `${prefix}/nginx.conf`];
  const check = spawnSync(NGINX!, ['-t', ...args], { encoding: 'utf8' });
  assert.equal(check.status, 0, check.stderr);
  const nginx: ChildProcess = spawn(NGINX!, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let nginxErr = '';
  nginx.stderr!.on('data', (d) => (nginxErr += d));
  const exited = new Promise((resolve) => nginx.once('exit', resolve));
  const stop = async () => {
    if (nginx.exitCode === null) {
      nginx.kill('SIGQUIT');
      await exited;
    }
    fs.rmSync(prefix, { recursive: true, force: true });
  };
  // Ready once it accepts a request.
  for (;;) {
    try {
      await httpsRequest(port, 'chat.example.com', 'GET', '/api/v1/server_settings');
      break;
    } catch (err) {
      if (nginx.exitCode !== null) {
        const log = fs.existsSync(`${prefix}/error.log`) ? fs.readFileSync(`${prefix}/error.log`, 'utf8') : '';
        await stop();
        throw new Error(`nginx exited: ${nginxErr} ${log}`, { cause: err });
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  return {
    port,
    prefix,
    checked: check.stderr,
    accessLog: () => fs.readFileSync(`${prefix}/access.log`, 'utf8').split('\n').filter(Boolean),
    stop,
  };
}

/** One HTTPS request to the local nginx (certificate not checked), with a Host and optional basic auth and form body. */
export function httpsRequest(port: number, host: string, method: string, pathName: string, opts: { auth?: string; form?: Record<string, string> } = {}): Promise<{ status: number; body: any; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { host };
    if (opts.auth) headers.authorization = 'Basic ' + Buffer.from(opts.auth).toString('base64');
    const body = opts.form ? new URLSearchParams(opts.form).toString() : undefined;
    if (body !== undefined) headers['content-type'] = 'application/x-www-form-urlencoded';
    const req = https.request({ host: '127.0.0.1', port, method, path: pathName, headers, servername: host.split(':')[0], rejectUnauthorized: false }, (res) => {
      let data = '';
      res.setEncoding('utf8');
      res.on('data', (c) => (data += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: data.startsWith('{') ? JSON.parse(data) : data, headers: res.headers }));
    });
    req.once('error', reject);
    req.end(body);
  });
}
