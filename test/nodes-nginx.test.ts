// Three nodes behind the shipped round-robin nginx configuration (deploy/nginx-parley-cluster.conf):
// every long-poll is served by whichever node it reaches, every event arrives once and in order,
// through a rolling restart of the nodes, and a deleted queue is gone on all of them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { startTestServer } from './helpers/server.js';
import { root } from './helpers/cli.js';
import { httpsRequest, nginxMissing, startNginx } from './helpers/nginx.js';
import { until } from './helpers/wait.js';
import type { RunningServer } from '../src/main.js';

const onPostgres = !!process.env.PARLEY_TEST_PG_URL;
if (onPostgres && nginxMissing && process.env.CI) throw new Error(`CI needs it: ${nginxMissing}`);
const skip = !onPostgres ? 'several nodes need PostgreSQL; this runs in the PostgreSQL pass' : nginxMissing || false;

test('three nodes behind the round-robin nginx sample serve one queue: no gap, no duplicate, through a rolling restart', { skip, timeout: 120_000 }, async () => {
  const busUrl = `nats://127.0.0.1:4222?subject=parley.test.${randomBytes(6).toString('hex')}`;
  const s = await startTestServer({ env: { PARLEY_BUS_URL: busUrl, PARLEY_NODE_ID: 'a', PARLEY_HEARTBEAT_SECS: '1' } });
  const nodes: Record<string, RunningServer> = {};
  nodes.b = await s.peer({ busUrl, nodeId: 'b', heartbeatSecs: 1 });
  nodes.c = await s.peer({ busUrl, nodeId: 'c', heartbeatSecs: 1 });
  const portOf = (url: string) => Number(new URL(url).port);
  const ports = { a: portOf(s.url), b: portOf(nodes.b.url), c: portOf(nodes.c.url) };
  const sample = fs.readFileSync(path.join(root, 'deploy/nginx-parley-cluster.conf'), 'utf8');
  const nginx = await startNginx(sample, [ports.a, ports.b, ports.c]);
  const auth = `${s.owner.email}:${s.owner.apiKey}`;
  const via = (method: string, p: string, form?: Record<string, string>) => httpsRequest(nginx.port, 'localhost', method, `/api/v1/${p}`, { auth, form });
  try {
    const reg = await via('POST', 'register', { event_types: '["message"]' });
    assert.equal(reg.body.result, 'success', JSON.stringify(reg.body));
    const queueId = reg.body.queue_id as string;

    const received: { id: number; content: string }[] = [];
    let lastEventId = -1;
    const poll = async (dontBlock = false) => {
      const r = await via('GET', `events?queue_id=${encodeURIComponent(queueId)}&last_event_id=${lastEventId}${dontBlock ? '&dont_block=true' : ''}`);
      assert.equal(r.status, 200, JSON.stringify(r.body));
      for (const e of r.body.events) {
        if (e.type === 'heartbeat') continue;
        received.push({ id: e.id, content: e.message.content });
        lastEventId = e.id;
      }
    };
    const sent: string[] = [];
    const send = async (n: number) => {
      for (let i = 0; i < n; i++) {
        const content = `m${sent.length}`;
        // Through nginx too; it does not retry a POST on another node, so a send that reached a
        // stopped node (502, never executed) is sent again, as a client would.
        let r = await via('POST', 'messages', { type: 'private', to: JSON.stringify([s.owner.userId]), content });
        for (let t = 0; t < 5 && r.status === 502; t++) r = await via('POST', 'messages', { type: 'private', to: JSON.stringify([s.owner.userId]), content });
        assert.equal(r.status, 200, `send ${sent.length}: ${fs.readFileSync(path.join(nginx.prefix, 'error.log'), 'utf8').slice(-600)}`);
        sent.push(content);
      }
    };
    const drain = async () => {
      for (let i = 0; i < 200 && received.length < sent.length; i++) await poll();
    };

    for (let round = 0; round < 6; round++) {
      // Three polls in a row go to the three nodes in turn (sends in between could otherwise bring
      // the balancer back to the same node for every poll).
      for (let i = 0; i < 3; i++) await poll(true);
      await send(5);
      await drain();
    }
    // A rolling restart: each node stops and comes back on its port with its id while sends and
    // polls go on through nginx.
    for (const id of ['a', 'b', 'c'] as const) {
      if (id === 'a') {
        await s.restart(async () => {
          await send(5);
          await drain();
        });
      } else {
        await nodes[id].close();
        await send(5);
        await drain();
        nodes[id] = await s.peer({ busUrl, nodeId: id, heartbeatSecs: 1, port: ports[id] });
      }
      // nginx tries a node that refused a connection again after fail_timeout (1 s in the sample);
      // an operator waits that long before stopping the next node.
      await new Promise((r) => setTimeout(r, 1100));
      await send(5);
      await drain();
    }
    assert.deepEqual(
      received.map((r) => r.content),
      sent,
      'every message once, in order',
    );
    assert.deepEqual(
      received.map((r) => r.id),
      received.map((_r, i) => received[0].id + i),
      'event IDs consecutive',
    );
    // $upstream_addr lists every node tried ("a, b" when a refused the connection): the last one answered.
    const upstreams = new Set(nginx.accessLog().filter((l) => l.includes('GET /api/v1/events')).map((l) => /^(.*?) "/.exec(l)![1].split(', ').pop()!));
    for (const p of Object.values(ports)) assert.ok(upstreams.has(`127.0.0.1:${p}`), `node on ${p} served polls: ${[...upstreams].join(' ')}`);

    // Deleted through one node: gone on every node.
    const del = await via('DELETE', `events?queue_id=${encodeURIComponent(queueId)}`);
    assert.equal(del.status, 200, JSON.stringify(del.body));
    await until('every node to drop the queue', async () => {
      for (let i = 0; i < 3; i++) {
        const r = await via('GET', `events?queue_id=${encodeURIComponent(queueId)}&dont_block=true`);
        if (r.body.code !== 'BAD_EVENT_QUEUE_ID') return false;
      }
      return true;
    });
  } finally {
    await nginx.stop();
    for (const n of Object.values(nodes)) await n.close().catch(() => {});
    await s.close();
  }
});
