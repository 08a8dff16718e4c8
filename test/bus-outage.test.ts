// A bus outage delays delivery and loses nothing: two nodes on PostgreSQL and a NATS server this
// test owns, stopped for 5 and for 60 seconds while messages are sent; writes never fail meanwhile,
// every message reaches a queue on the other node, in order (during the outage too: nodes read the
// log), and the nodes reconnect on their own.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import net from 'node:net';
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { startTestServer, Client, type TestServer } from './helpers/server.js';
import { freePort } from './helpers/cli.js';

const onPostgres = !!process.env.PARLEY_TEST_PG_URL;
const skip = onPostgres ? false : 'several nodes need PostgreSQL (SQLite is single-node); this runs in the PostgreSQL pass';

/** Starts nats-server on the port and resolves once it accepts connections. */
async function startNats(port: number, dir: string): Promise<ChildProcess> {
  const child = spawn('/usr/sbin/nats-server', ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', dir], { stdio: 'ignore' });
  for (let i = 0; i < 200; i++) {
    const up = await new Promise<boolean>((resolve) => {
      const s = net.connect(port, '127.0.0.1', () => {
        s.destroy();
        resolve(true);
      });
      s.on('error', () => resolve(false));
    });
    if (up) return child;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('nats-server did not start');
}

async function stopNats(child: ChildProcess): Promise<void> {
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGKILL');
  await exited;
}

async function outage(outageMs: number): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-nats-'));
  const port = await freePort();
  let nats = await startNats(port, dir);
  const busUrl = `nats://127.0.0.1:${port}?subject=parley.outage`;
  let s: TestServer | undefined;
  let b;
  try {
    s = await startTestServer({ env: { PARLEY_BUS_URL: busUrl, PARLEY_NODE_ID: 'a' } });
    b = await s.peer({ busUrl, nodeId: 'b' });
    const onB = new Client({ url: b.url } as TestServer, s.owner.userId, s.owner.email, s.owner.apiKey);
    const reg = await onB.ok('POST', 'register', { event_types: ['message'] });
    const got: number[] = [];
    let last = reg.last_event_id as number;
    let polling = true;
    const poller = (async () => {
      while (polling) {
        const r = await onB.ok('GET', 'events', { queue_id: reg.queue_id, last_event_id: last });
        for (const e of r.events as { id: number; type: string; message?: { id: number } }[]) {
          if (e.type !== 'message') continue;
          got.push(e.message!.id);
          last = e.id;
        }
        last = Math.max(last, ...(r.events as { id: number }[]).map((e) => e.id));
      }
    })();
    const sent: number[] = [];
    const send = async (n: number) => {
      // Sent on node a: the event reaches node b over the bus, or from the log while the bus is away.
      const r = await s!.owner.post('messages', { type: 'stream', to: 'general', topic: 'outage', content: `m ${n}` });
      assert.equal(r.status, 200, `send ${n} answered ${r.status}: ${JSON.stringify(r.body)}`);
      sent.push(r.body.id);
    };
    let n = 0;
    for (; n < 10; n++) await send(n);
    await stopNats(nats);
    // Writes during the outage commit and answer as usual, and reach node b from the log.
    const end = Date.now() + outageMs;
    while (Date.now() < end) {
      await send(n++);
      await new Promise((r) => setTimeout(r, 250));
    }
    const duringOutage = got.length;
    nats = await startNats(port, dir);
    for (let i = 0; i < 10; i++) await send(n++);
    // Every message reaches the queue on the other node, once and in order.
    for (let i = 0; i < 200 && got.length < sent.length; i++) await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual(got, sent, 'every message sent reached node b once, in order');
    assert.ok(duringOutage > 10, `node b got messages during the outage from the log (${duringOutage} of ${sent.length})`);
    // The bus itself is back: /readyz on both nodes.
    for (const url of [s.url, b.url]) {
      let status = 0;
      for (let i = 0; i < 100 && status !== 200; i++) {
        status = (await fetch(`${url}/readyz`)).status;
        if (status !== 200) await new Promise((r) => setTimeout(r, 100));
      }
      assert.equal(status, 200, `${url}/readyz after the outage`);
    }
    // Events still flow after the outage.
    polling = false;
    await send(n++);
    await poller;
    assert.equal(got.length, sent.length);
  } finally {
    await b?.close();
    await s?.close();
    await stopNats(nats);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

test('a NATS outage of 5 seconds: writes succeed, no event is lost, delivery recovers', { skip }, () => outage(5_000));

test('a NATS outage of 60 seconds: writes succeed, no event is lost, the nodes reconnect', { skip, timeout: 180_000 }, () => outage(60_000));
