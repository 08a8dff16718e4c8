// Render cost of two builds of the bench's message mix, interleaved in one process (CPU time): node bench/render-ab.mjs DIR_A DIR_B (each a checkout with dist/ built).
/* global process, console */
const [dirA, dirB] = process.argv.slice(2);
const A = await import(dirA + '/dist/src/lib/markdown/index.js');
const B = await import(dirB + '/dist/src/lib/markdown/index.js');
const MIX = [
  'ok, thanks!',
  'Sounds good to me :+1:',
  'Can you take a look at **the failing build** when you get a chance?',
  '@**Bench root 1** the deploy finished, see https://example.com/deploys/1234',
  'I think we should _not_ merge this before the release. Thoughts @**Bench root 2**?',
  '```\n$ npm test\n  ✔ 412 passing (38s)\n```\nall green now',
  '> is the migration reversible?\n\nYes, `down()` restores the old column.',
  'Agenda for tomorrow:\n1. release status\n2. on-call handover\n3. **retro** items\n\n- [link](https://example.com/agenda)',
  'Lunch? :pizza: :coffee:',
  "Here is the query plan:\n```sql\nEXPLAIN SELECT id FROM messages WHERE recipient_id = 5 AND topic_key = 't' ORDER BY id DESC LIMIT 101;\n```\nIt uses `messages_recipient_topic`.",
  '| metric | before | after |\n|---|---|---|\n| p50 | 12 ms | 4 ms |\n| p99 | 80 ms | 15 ms |',
  Array.from({ length: 12 }, (_, i) => `Paragraph ${i + 1}: the quick brown fox jumps over the lazy dog, with *some emphasis*, a [link](https://example.com/${i}) and :smile:.`).join('\n\n'),
];
const users = [{ id: 1, full_name: 'Bench root 1' }, { id: 2, full_name: 'Bench root 2' }];
const camo = { uri: '/external_content/', key: 'k'.repeat(64) };
const ctxA = A.renderContextFrom(users, { realmUrl: 'http://localhost' });
const ctxB = B.renderContextFrom(users, { realmUrl: 'http://localhost', camo });
function run(mod, ctx, rounds) {
  const t0 = process.cpuUsage();
  for (let r = 0; r < rounds; r++) for (const m of MIX) mod.renderMessage(m, ctx);
  const d = process.cpuUsage(t0); return (d.user + d.system) / (rounds * MIX.length);
}
for (let i = 0; i < 3; i++) { run(A, ctxA, 100); run(B, ctxB, 100); }
const ratios = [], a = [], b = [];
for (let i = 0; i < 400; i++) {
  let x, y;
  if (i % 2) { x = run(A, ctxA, 10); y = run(B, ctxB, 10); } else { y = run(B, ctxB, 10); x = run(A, ctxA, 10); }
  a.push(x); b.push(y); ratios.push(y / x);
}
const med = (x) => [...x].sort((p, q) => p - q)[x.length >> 1];
const sum = (x) => x.reduce((p, q) => p + q, 0);
console.log(`CPU µs per message (bench mix; 400 interleaved blocks of 10 rounds): A median ${med(a).toFixed(2)}, B median ${med(b).toFixed(2)}; B/A: median of per-block ratios ${med(ratios).toFixed(4)}, ratio of totals ${(sum(b) / sum(a)).toFixed(4)}`);
