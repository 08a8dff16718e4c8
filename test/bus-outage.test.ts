// A bus outage delays delivery and loses nothing: two nodes on PostgreSQL and a NATS server this
// test owns, stopped for a few seconds while messages are sent; writes never fail meanwhile, and
// every message reaches a queue on the other node once the bus is back (and before: nodes read the log).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import net from 'node:net';
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { startTestServer, Client, type TestServer } from './helpers/server.js';

const onPostgres = !!process.env.PARLEY_TEST_PG_URL;
const skip = onPostgres ? false : 'several nodes need PostgreSQL (SQLite is single-node); this runs in the PostgreSQL pass';

async function freePort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
  const port = (srv.address() as net.AddressInfo).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

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

test('a NATS outage of a few seconds: writes succeed, no event is lost, delivery recovers', { skip }, async () => {
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
    for (let i = 0; i < 10; i++) await send(i);
    await stopNats(nats);
    // Writes during the outage commit and answer as usual.
    for (let i = 10; i < 30; i++) {
      await send(i);
      await new Promise((r) => setTimeout(r, 150));
    }
    nats = await startNats(port, dir);
    for (let i = 30; i < 40; i++) await send(i);
    // Every message reaches the queue on the other node.
    for (let i = 0; i < 200 && got.length < sent.length; i++) await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual(got.slice().sort((x, y) => x - y), sent.slice().sort((x, y) => x - y), 'every message sent reached node b once');
    // The bus itself is back: /readyz on both nodes.
    for (const url of [s.url, b.url]) {
      let status = 0;
      for (let i = 0; i < 100 && status !== 200; i++) {
        status = (await fetch(`${url}/readyz`)).status;
        if (status !== 200) await new Promise((r) => setTimeout(r, 100));
      }
      assert.equal(status, 200, `${url}/readyz after the outage`);
    }
    polling = false;
    await send(40);
    await poller;
  } finally {
    await b?.close();
    await s?.close();
    await stopNats(nats);
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
