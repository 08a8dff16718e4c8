// Long-polls over kept-alive HTTP/1.1 connections during a fan-out: every client's next poll on the same connection is read and answered.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { startTestServer, type TestServer } from './helpers/server.js';

let s: TestServer;
before(async () => {
  s = await startTestServer();
});
after(async () => {
  await s.close();
});

interface PollAnswer {
  events: { id: number; type: string; message?: { content: string } }[];
  localPort: number;
}

/** One GET /events on the given agent (one socket, kept alive), with the connection's local port. */
function poll(agent: http.Agent, queueId: string, lastEventId: number): Promise<PollAnswer> {
  const auth = 'Basic ' + Buffer.from(`${s.owner.email}:${s.owner.apiKey}`).toString('base64');
  const url = new URL(s.url);
  return new Promise((resolve, reject) => {
    const req = http.get({ hostname: url.hostname, port: url.port, path: `/api/v1/events?queue_id=${encodeURIComponent(queueId)}&last_event_id=${lastEventId}`, headers: { authorization: auth }, agent }, (res) => {
      // Read now: the agent takes the socket back once the answer has ended.
      const localPort = res.socket.localPort!;
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { result: string; events: PollAnswer['events'] };
        if (res.statusCode !== 200 || body.result !== 'success') reject(new Error(`poll → ${res.statusCode}`));
        else resolve({ events: body.events, localPort });
      });
    });
    req.on('error', reject);
  });
}

const messages = (a: PollAnswer) => a.events.filter((e) => e.type === 'message').map((e) => e.message!.content);

test('during a fan-out larger than one turn of answers, each client polls again on its connection and gets the next message', async () => {
  // More queues than the registry answers in one turn of the loop, so the first answers finish
  // while others are still going out: their connections' next polls are held back, then read.
  const n = 150;
  const queueIds: string[] = [];
  for (let i = 0; i < n; i++) queueIds.push((await s.owner.ok('POST', 'register', { event_types: ['message'] })).queue_id as string);
  const agents = queueIds.map(() => new http.Agent({ keepAlive: true, maxSockets: 1 }));
  // Counted where the HTTP layer hands a connection to the read pacer: holding shows to a client
  // only as timing, which a test must not assert.
  const queues = s.running.app.queues;
  const holdReads = queues.holdReads.bind(queues);
  let holds = 0;
  queues.holdReads = (conn) => {
    holds++;
    holdReads(conn);
  };
  try {
    const to = JSON.stringify([s.owner.userId]);
    // Each client polls, and polls again the moment its answer arrives, on the same connection.
    const firsts = queueIds.map((queueId, i) => poll(agents[i], queueId, -1));
    const seconds = firsts.map((first, i) => first.then((a) => poll(agents[i], queueIds[i], a.events.at(-1)!.id)));
    await new Promise((r) => setTimeout(r, 200));
    await s.owner.ok('POST', 'messages', { type: 'private', to, content: 'first' });
    await Promise.all(firsts);
    await s.owner.ok('POST', 'messages', { type: 'private', to, content: 'second' });
    const answers = await Promise.all(firsts.map(async (first, i) => ({ first: await first, second: await seconds[i] })));
    for (const { first, second } of answers) {
      assert.deepEqual(messages(first), ['first']);
      assert.deepEqual(messages(second), ['second']);
      assert.equal(second.localPort, first.localPort, 'the next poll went over the same kept-alive connection');
    }
    assert.ok(holds > 0, 'connections answered while other answers were still going out were held, and their next polls still answered');
  } finally {
    queues.holdReads = holdReads;
    for (const a of agents) a.destroy();
  }
});
