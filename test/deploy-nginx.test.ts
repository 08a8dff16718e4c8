// deploy/nginx-parley.conf: `nginx -t` accepts it, and requests (TLS, subdomain hosts, a long-poll) pass through it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import https from 'node:https';
import { spawn, spawnSync } from 'node:child_process';
import { freshStorage, startServeProcess } from './helpers/storage.js';
import { cli, freePort, jsonLine, root } from './helpers/cli.js';

const NGINX = ['/usr/sbin/nginx', '/usr/local/sbin/nginx', '/usr/bin/nginx'].find((p) => fs.existsSync(p));
const OPENSSL = spawnSync('openssl', ['version']).status === 0;
const missing = !NGINX ? 'nginx is not installed (Debian: nginx-light)' : !OPENSSL ? 'openssl is not installed' : '';
if (missing) {
  if (process.env.CI) throw new Error(`CI needs it: ${missing}`);
  console.log(`NOTE: the nginx sample test was SKIPPED: ${missing}.`);
}

/** The sample, listening on a local port with a fresh self-signed certificate, proxying to upstreamPort. */
function localVariant(sample: string, prefix: string, httpsPort: number, httpPort: number, upstreamPort: number): string {
  const out = sample
    .replace(/server 127\.0\.0\.1:9991;/, `server 127.0.0.1:${upstreamPort};`)
    .replace(/^\s*listen \[::\]:\d+.*\n/gm, '')
    .replace(/listen 80;/, `listen 127.0.0.1:${httpPort};`)
    .replace(/listen 443 ssl http2;/, `listen 127.0.0.1:${httpsPort} ssl http2;`)
    .replace(/ssl_certificate\s+\S+;/, `ssl_certificate ${prefix}/cert.pem;`)
    .replace(/ssl_certificate_key\s+\S+;/, `ssl_certificate_key ${prefix}/key.pem;`);
  // Each rewrite must have found its line, or the test would exercise something else than the sample.
  for (const expected of [`127.0.0.1:${upstreamPort}`, `127.0.0.1:${httpsPort} ssl`, `${prefix}/cert.pem`, `${prefix}/key.pem`]) assert.ok(out.includes(expected), expected);
  return out;
}

async function otherFreePort(taken: number): Promise<number> {
  for (;;) {
    const p = await freePort();
    if (p !== taken) return p;
  }
}

function get(port: number, host: string, pathName: string, auth?: string): Promise<{ status: number; body: any; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { host };
    if (auth) headers.authorization = 'Basic ' + Buffer.from(auth).toString('base64');
    const req = https.request({ host: '127.0.0.1', port, path: pathName, headers, servername: host.split(':')[0], rejectUnauthorized: false }, (res) => {
      let data = '';
      res.setEncoding('utf8');
      res.on('data', (c) => (data += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: data.startsWith('{') ? JSON.parse(data) : data, headers: res.headers }));
    });
    req.once('error', reject);
    req.end();
  });
}

test('the nginx sample passes nginx -t and proxies TLS requests, subdomain hosts and long-polls to Parley', { skip: missing || false }, async () => {
  const sample = fs.readFileSync(path.join(root, 'deploy/nginx-parley.conf'), 'utf8');
  // Long-polls wait PARLEY_HEARTBEAT_SECS (50 s) for a heartbeat: the proxy must wait longer.
  const readTimeout = Number(/location \/api\/v1\/events \{[^}]*proxy_read_timeout (\d+)s;/.exec(sample)?.[1]);
  assert.ok(readTimeout > 50, 'proxy_read_timeout of /api/v1/events exceeds the heartbeat');

  const st = await freshStorage();
  const prefix = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-nginx-'));
  let nginx: ReturnType<typeof spawn> | undefined;
  const server = await startServeProcess(root, st, ['--port', '0', '--external-url', 'https://chat.example.com'], { PARLEY_HEARTBEAT_SECS: '1' });
  try {
    const upstreamPort = Number(new URL(server.url).port);
    const acme = jsonLine(await cli(['create-realm', '--name', 'Acme', '--subdomain', 'acme', '--owner-email', 'boss@acme.test', '--owner-name', 'Boss', '--owner-password', 'pw', '--external-url', 'https://chat.example.com', ...st.args]));
    assert.equal(acme.realm_url, 'https://acme.chat.example.com');

    const cert = spawnSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=chat.example.com', '-addext', 'subjectAltName=DNS:chat.example.com,DNS:*.chat.example.com', '-keyout', `${prefix}/key.pem`, '-out', `${prefix}/cert.pem`], { encoding: 'utf8' });
    assert.equal(cert.status, 0, cert.stderr);
    const port = await freePort();
    fs.writeFileSync(path.join(prefix, 'parley-site.conf'), localVariant(sample, prefix, port, await otherFreePort(port), upstreamPort));
    fs.writeFileSync(
      path.join(prefix, 'nginx.conf'),
      [
        'daemon off;',
        'worker_processes 1;',
        `pid ${prefix}/nginx.pid;`,
        `error_log ${prefix}/error.log warn;`,
        'events { worker_connections 128; }',
        'http {',
        '  access_log off;',
        ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((t) => `  ${t}_temp_path ${prefix}/${t};`),
        `  include ${prefix}/parley-site.conf;`,
        '}',
        '',
      ].join('\n'),
    );
    const args = ['-p', prefix, '-e', `${prefix}/error.log`, '-c', `${prefix}/nginx.conf`];
    const check = spawnSync(NGINX!, ['-t', ...args], { encoding: 'utf8' });
    assert.equal(check.status, 0, check.stderr);
    assert.match(check.stderr, /syntax is ok/);

    nginx = spawn(NGINX!, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let nginxErr = '';
    nginx.stderr!.on('data', (d) => (nginxErr += d));
    const exited = new Promise((resolve) => nginx!.once('exit', resolve));
    // Ready once it accepts a request.
    let settings;
    for (;;) {
      try {
        settings = await get(port, 'chat.example.com', '/api/v1/server_settings');
        break;
      } catch (err) {
        if (nginx.exitCode !== null) throw new Error(`nginx exited: ${nginxErr} ${fs.readFileSync(`${prefix}/error.log`, 'utf8')}`, { cause: err });
        await new Promise((r) => setTimeout(r, 50));
      }
    }
    assert.equal(settings.status, 200);
    assert.equal(settings.body.realm_name, 'Parley', 'the root host is the root organization');
    const sub = await get(port, 'acme.chat.example.com', '/api/v1/server_settings');
    assert.equal(sub.body.realm_name, 'Acme', 'the Host header reaches Parley and selects the organization');
    assert.equal(sub.body.realm_url, 'https://acme.chat.example.com');

    // A long-poll through the proxy: register, then a held GET /events answered by a heartbeat.
    const auth = `${acme.email}:${acme.api_key}`;
    const reg = await new Promise<any>((resolve, reject) => {
      const req = https.request({ host: '127.0.0.1', port, method: 'POST', path: '/api/v1/register', headers: { host: 'acme.chat.example.com', authorization: 'Basic ' + Buffer.from(auth).toString('base64'), 'content-type': 'application/x-www-form-urlencoded' }, rejectUnauthorized: false }, (res) => {
        let d = '';
        res.on('data', (c) => (d += c));
        res.on('end', () => resolve(JSON.parse(d)));
      });
      req.once('error', reject);
      req.end('event_types=' + encodeURIComponent('["message"]'));
    });
    assert.equal(reg.result, 'success', JSON.stringify(reg));
    const poll = await get(port, 'acme.chat.example.com', `/api/v1/events?queue_id=${encodeURIComponent(reg.queue_id)}&last_event_id=-1`, auth);
    assert.equal(poll.status, 200);
    assert.deepEqual(poll.body.events.map((e: any) => e.type), ['heartbeat']);

    nginx.kill('SIGQUIT');
    await exited;
  } finally {
    if (nginx && nginx.exitCode === null) nginx.kill('SIGKILL');
    await server.stop();
    fs.rmSync(prefix, { recursive: true, force: true });
    await st.cleanup();
  }
});
