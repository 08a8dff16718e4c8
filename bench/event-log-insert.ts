// Microbenchmark: the CPU a send's event-log row adds (JSON text of its notices, recipients left to
// user_messages, + one prepared
// INSERT in the send's transaction), measured in-process on SQLite, where wall-clock benches on a
// shared machine mean little. `node dist/bench/event-log-insert.js`.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Store } from '../src/store/store.js';
import { compactBody, insertLogRow } from '../src/events/event-log.js';
import type { Outgoing } from '../src/events/types.js';

const N = 20_000;
const GROUP = 20;

/** A channel message's notice to 100 subscribers, shaped and sized as a send's. */
function notice(i: number): Outgoing[] {
  const users = Array.from({ length: 100 }, (_, k) => k + 1);
  const message = {
    id: i, sender_id: 1, content: `<p>message ${i} with some words in it, as people write them</p>`, recipient_id: 7, timestamp: 1_700_000_000 + i,
    client: 'website', subject: 'a topic', topic_links: [], is_me_message: false, reactions: [], submessages: [], sender_full_name: 'Ann Example',
    sender_email: 'ann@example.com', sender_realm_str: 'acme', display_recipient: 'general', type: 'stream', stream_id: 3, avatar_url: null, content_type: 'text/html',
  };
  return [{ users, event: { type: 'message', message }, flags: { 1: ['read'] }, publicStreamId: 3 }];
}

async function run(withLog: boolean): Promise<number> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-bench-log-'));
  const store = await Store.open({ databaseUrl: '', dataDir: dir });
  try {
    const items = Array.from({ length: GROUP }, (_, i) => notice(i));
    const start = process.cpuUsage();
    for (let done = 0; done < N; done += GROUP) {
      await Promise.all(
        items.map((it) =>
          store.write(async (tx) => {
            // The send's own work is not measured; a write needs one statement to exist at all.
            if (withLog) await insertLogRow(store, tx, 1, store.pendingStampText(), compactBody(it) ?? JSON.stringify(it), 1_700_000_000, true);
          }),
        ),
      );
    }
    const used = process.cpuUsage(start);
    return (used.user + used.system) / N;
  } finally {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const results: string[] = [];
for (let i = 0; i < 3; i++) {
  const without = await run(false);
  const withLog = await run(true);
  results.push(`without log ${without.toFixed(1)} µs/write, with log ${withLog.toFixed(1)} µs/write: +${(withLog - without).toFixed(1)} µs per send`);
}
console.log(results.join('\n'));
