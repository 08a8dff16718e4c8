// The bench's fixed-rate load spreads its requests over the run instead of sending each second's share at once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { runPaced } from '../bench/paced-load.js';

test('runPaced sends rate × seconds requests spread over the run and counts each answer', async () => {
  const arrivals: number[] = [];
  let n = 0;
  const server = http.createServer((req, res) => {
    arrivals.push(performance.now());
    req.resume();
    // Every fifth request is refused, so non-2xx answers are told apart.
    const status = ++n % 5 === 0 ? 400 : 200;
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': '2' }).end('{}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  try {
    const { port } = server.address() as AddressInfo;
    const r = await runPaced({ url: `http://127.0.0.1:${port}/x`, method: 'POST', headers: {}, body: 'a=1', connections: 4, seconds: 1, rate: 200 });
    assert.equal(r.ok + r.non2xx, 200);
    assert.equal(r.non2xx, 40);
    assert.equal(r.errors, 0);
    // A per-second budget spent at full speed (autocannon's overallRate) puts nearly all of a
    // second's requests in its first half; even spacing puts about half there. A slow machine
    // delays requests, which moves them later, never earlier.
    const firstHalf = arrivals.filter((t) => t < arrivals[0] + 500).length;
    assert.ok(firstHalf <= 130, `${firstHalf} of 200 requests arrived in the first half second`);
    assert.ok(Number.isFinite(r.p99_ms) && r.p99_ms >= r.p50_ms);
  } finally {
    server.close();
  }
});
