// Delivery microbenchmark, in-process: 100 queues, each with a waiting poll that polls again
// (acknowledging) after every answer, and 10,000 message notices; CPU per message. Compares builds:
// `node dist/bench/delivery-micro.js /path/to/other/dist` (default: this build).
import path from 'node:path';

const dist = process.argv[2] ?? path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const { QueueRegistry } = (await import(`${dist}/src/events/registry.js`)) as any;
const N = 10000, Q = 100;
const reg = new QueueRegistry({ nodeId: 't', heartbeatSecs: 50, now: () => 0, minAnswerGapMs: 0, loopUtilization: () => 0 });
let answered = 0;
class L {
  aborted = false;
  pacedReads = true;
  constructor(readonly q: unknown) {}
  onClose(): void {}
  deliver(events: { id: number }[]): void {
    answered += events.length;
    const last = events.length ? events[events.length - 1].id : undefined;
    setImmediate(() => reg.listen(this.q, last, false, new L(this.q)));
  }
}
const users = Array.from({ length: Q }, (_, i) => i + 1);
for (const u of users) {
  const q = reg.create({ userId: u, realmId: 1, eventTypes: null, narrow: [], allPublicStreams: false, applyMarkdown: true, clientGravatar: false, capabilities: {}, idleTimeoutSecs: 600, clientName: 'b' });
  reg.completeRegistration(q, { isVisible: () => false, toJSON: () => null });
  reg.listen(q, -1, false, new L(q));
}
const message = { id: 1, sender_id: 1, content: '<p>hello world</p>', recipient_id: 7, timestamp: 1, client: 'website', subject: 'topic', topic_links: [], is_me_message: false, reactions: [], submessages: [], sender_full_name: 'Ann', sender_email: 'a@x', sender_realm_str: 'acme', display_recipient: 'general', type: 'stream', stream_id: 3, avatar_url: null, content_type: 'text/html', sender_avatar: { source: 'G', email: 'a@x', deliveryEmail: 'a@x' } };
const start = process.cpuUsage();
for (let i = 1; i <= N; i++) {
  reg.deliver([{ realmId: 1, stamp: null, users, event: { type: 'message', message: { ...message, id: i } }, flags: {}, pos: i * 65536 }]);
  if (i % 20 === 0) await new Promise((r) => setImmediate(r));
}
while (answered < N * Q) await new Promise((r) => setTimeout(r, 1));
const u = process.cpuUsage(start);
console.log(`${dist}: ${((u.user + u.system) / N).toFixed(1)} µs CPU per message to ${Q} queues`);
process.exit(0);
