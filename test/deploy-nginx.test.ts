// deploy/nginx-parley.conf: `nginx -t` accepts it, and requests (TLS, subdomain hosts, a long-poll) pass through it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { freshStorage, startServeProcess } from './helpers/storage.js';
import { cli, jsonLine, root } from './helpers/cli.js';
import { httpsRequest, nginxMissing, startNginx } from './helpers/nginx.js';

if (nginxMissing) {
  if (process.env.CI) throw new Error(`CI needs it: ${nginxMissing}`);
  console.log(`NOTE: the nginx sample test was SKIPPED: ${nginxMissing}.`);
}

test('the nginx sample passes nginx -t and proxies TLS requests, subdomain hosts and long-polls to Parley', { skip: nginxMissing || false }, async () => {
  const sample = fs.readFileSync(path.join(root, 'deploy/nginx-parley.conf'), 'utf8');
  // Long-polls wait PARLEY_HEARTBEAT_SECS (50 s) for a heartbeat: the proxy must wait longer.
  const readTimeout = Number(/location \/api\/v1\/events \{[^}]*proxy_read_timeout (\d+)s;/.exec(sample)?.[1]);
  assert.ok(readTimeout > 50, 'proxy_read_timeout of /api/v1/events exceeds the heartbeat');

  const st = await freshStorage();
  const server = await startServeProcess(root, st, ['--port', '0', '--external-url', 'https://chat.example.com'], { PARLEY_HEARTBEAT_SECS: '1' });
  let nginx: Awaited<ReturnType<typeof startNginx>> | undefined;
  try {
    const acme = jsonLine(await cli(['create-realm', '--name', 'Acme', '--subdomain', 'acme', '--owner-email', 'boss@acme.test', '--owner-name', 'Boss', '--owner-password', 'pw', '--external-url', 'https://chat.example.com', ...st.args]));
    assert.equal(acme.realm_url, 'https://acme.chat.example.com');
    nginx = await startNginx(sample, [Number(new URL(server.url).port)]);
    assert.match(nginx.checked, /syntax is ok/);
    const port = nginx.port;

    const settings = await httpsRequest(port, 'chat.example.com', 'GET', '/api/v1/server_settings');
    assert.equal(settings.status, 200);
    assert.equal(settings.body.realm_name, 'Parley', 'the root host is the root organization');
    const sub = await httpsRequest(port, 'acme.chat.example.com', 'GET', '/api/v1/server_settings');
    assert.equal(sub.body.realm_name, 'Acme', 'the Host header reaches Parley and selects the organization');
    assert.equal(sub.body.realm_url, 'https://acme.chat.example.com');

    // A long-poll through the proxy: register, then a held GET /events answered by a heartbeat.
    const auth = `${acme.email}:${acme.api_key}`;
    const reg = await httpsRequest(port, 'acme.chat.example.com', 'POST', '/api/v1/register', { auth, form: { event_types: '["message"]' } });
    assert.equal(reg.body.result, 'success', JSON.stringify(reg.body));
    const poll = await httpsRequest(port, 'acme.chat.example.com', 'GET', `/api/v1/events?queue_id=${encodeURIComponent(reg.body.queue_id)}&last_event_id=-1`, { auth });
    assert.equal(poll.status, 200);
    assert.deepEqual(poll.body.events.map((e: any) => e.type), ['heartbeat']);
  } finally {
    await nginx?.stop();
    await server.stop();
    await st.cleanup();
  }
});
