// Durability: every message the server acknowledged is still there after the process is killed
// with SIGKILL in the middle of a burst of concurrent sends.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { request } from './helpers/server.js';
import { freshStorage, startServeProcess } from './helpers/storage.js';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');

test('acknowledged messages survive kill -9', async () => {
  const st = await freshStorage();
  try {
    const first = await startServeProcess(root, st);
    const email = /Email:\s+(\S+)/.exec(first.out)![1];
    const apiKey = /API key:\s+(\S+)/.exec(first.out)![1];
    const auth = { email, apiKey };
    const acked: number[] = [];
    let stop = false;
    // Twenty senders in parallel, so writes are committed in groups when the kill lands.
    const sender = async (n: number) => {
      for (let i = 0; !stop && i < 500; i++) {
        try {
          const r = await request(first.url, 'POST', 'messages', { type: 'stream', to: 'general', topic: 'burst', content: `m ${n}-${i}` }, { auth });
          if (r.status === 200) acked.push(r.body.id);
        } catch {
          return; // the server is gone
        }
      }
    };
    const senders = Array.from({ length: 20 }, (_, n) => sender(n));
    while (acked.length < 150) await new Promise((r) => setTimeout(r, 5));
    await first.kill9();
    stop = true;
    await Promise.all(senders);

    const second = await startServeProcess(root, st);
    try {
      const r = await request(second.url, 'GET', 'messages', { anchor: 'newest', num_before: 5000, num_after: 0, narrow: [{ operator: 'channel', operand: 'general' }] }, { auth });
      assert.equal(r.status, 200);
      const stored = new Set(r.body.messages.map((m: { id: number }) => m.id));
      const lost = acked.filter((id) => !stored.has(id));
      assert.deepEqual(lost, [], `${lost.length} of ${acked.length} acknowledged messages were lost`);
    } finally {
      await second.stop();
    }
  } finally {
    await st.cleanup();
  }
});
