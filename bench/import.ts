// npm run bench:import [-- --messages N] [--keep]: generates a Slack export of N messages (default 1,000,000),
// imports it into a fresh SQLite data directory in this process, and reports messages per second.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../src/config.js';
import { openApp } from '../src/main.js';
import { readSlack } from '../src/import/slack.js';
import { importBundle } from '../src/import/write.js';

const args = process.argv.slice(2);
const flag = (name: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};
const TOTAL = Number(flag('messages') ?? 1_000_000);
const USERS = 200;
const CHANNELS = 40;
const DMS = 60;
const PER_DAY = 500;

/** A deterministic generator, so every run imports the same export. */
let seed = 42;
const rand = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
const pick = <T>(list: T[]): T => list[Math.floor(rand() * list.length)];

const WORDS = 'the a deploy build test fix review merge release plan ship team meeting notes today tomorrow later please thanks agreed looks good idea question answer server client database index query cache'.split(' ');
function text(users: string[], channels: string[]): string {
  const n = 4 + Math.floor(rand() * 14);
  const words = Array.from({ length: n }, () => pick(WORDS));
  const r = rand();
  // Most chat lines are plain; some carry mentions, formatting, links or code, as in real exports.
  if (r < 0.08) words.splice(1, 0, `<@${pick(users)}>`);
  else if (r < 0.12) words.push(`*${pick(WORDS)}*`);
  else if (r < 0.14) words.push(`<https://example.com/${pick(WORDS)}|${pick(WORDS)}>`);
  else if (r < 0.15) words.push('`code()`');
  else if (r < 0.16) words.push(`<#${pick(channels)}>`);
  return words.join(' ');
}

function generate(dir: string): void {
  const users = Array.from({ length: USERS }, (_, i) => `U${String(i).padStart(8, '0')}`);
  fs.writeFileSync(path.join(dir, 'users.json'), JSON.stringify(users.map((id, i) => ({ id, name: `user${i}`, real_name: `User Number ${i}`, tz: 'UTC', profile: { email: `user${i}@example.com` }, is_admin: i === 0, is_owner: i === 0 }))));
  const channels = Array.from({ length: CHANNELS }, (_, i) => ({ id: `C${String(i).padStart(8, '0')}`, name: `channel-${i}`, created: 1500000000, members: users.filter(() => rand() < 0.1) }));
  fs.writeFileSync(path.join(dir, 'channels.json'), JSON.stringify(channels));
  const dms = Array.from({ length: DMS }, (_, i) => ({ id: `D${String(i).padStart(8, '0')}`, created: 1500000000, members: [pick(users), pick(users)] }));
  fs.writeFileSync(path.join(dir, 'dms.json'), JSON.stringify(dms));
  const conversations = [...channels.map((c) => ({ folder: c.name, members: c.members.length ? c.members : [users[0]], weight: 9 })), ...dms.map((d) => ({ folder: d.id, members: d.members, weight: 1 }))];
  const perConversation = conversations.map((c) => Math.floor((TOTAL * c.weight) / conversations.reduce((n, x) => n + x.weight, 0)));
  perConversation[0] += TOTAL - perConversation.reduce((n, x) => n + x, 0);
  const channelIds = channels.map((c) => c.id);
  conversations.forEach((c, ci) => {
    fs.mkdirSync(path.join(dir, c.folder), { recursive: true });
    let ts = 1500000000 + ci;
    for (let left = perConversation[ci], day = 0; left > 0; day++) {
      const n = Math.min(PER_DAY, left);
      left -= n;
      const messages = Array.from({ length: n }, () => {
        ts += 1 + Math.floor(rand() * 60);
        const reactions = rand() < 0.05 ? [{ name: pick(['+1', 'tada', 'eyes', 'heart']), users: [pick(c.members)], count: 1 }] : undefined;
        return { type: 'message', user: pick(c.members), text: text(users, channelIds), ts: `${ts}.000100`, ...(reactions ? { reactions } : {}) };
      });
      fs.writeFileSync(path.join(dir, c.folder, `day-${String(day).padStart(5, '0')}.json`), JSON.stringify(messages));
    }
  });
}

async function main(): Promise<void> {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-bench-import-'));
  const exportDir = path.join(work, 'export');
  fs.mkdirSync(exportDir);
  let t = performance.now();
  generate(exportDir);
  process.stdout.write(`generated a Slack export of ${TOTAL} messages in ${((performance.now() - t) / 1000).toFixed(1)} s\n`);
  const app = await openApp(loadConfig({ 'data-dir': path.join(work, 'data') }, {}));
  try {
    const cpu0 = process.cpuUsage();
    t = performance.now();
    const bundle = await readSlack(exportDir);
    const read = (performance.now() - t) / 1000;
    t = performance.now();
    const counts = await importBundle(app, bundle, { subdomain: 'bench' });
    const write = (performance.now() - t) / 1000;
    const total = read + write;
    const used = process.cpuUsage(cpu0);
    // On a shared machine the wall time includes waiting for a core; CPU seconds (this process, all threads) do not.
    const cpuSeconds = (used.user + used.system) / 1e6;
    const messages = counts.messages + counts.direct_messages;
    const rows = await app.store.db.selectFrom('user_messages').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    process.stdout.write(
      JSON.stringify({
        messages,
        user_message_rows: Number(rows.n),
        reactions: counts.reactions,
        read_seconds: Number(read.toFixed(2)),
        write_seconds: Number(write.toFixed(2)),
        cpu_seconds: Number(cpuSeconds.toFixed(2)),
        messages_per_second: Math.round(messages / total),
        messages_per_cpu_second: Math.round(messages / cpuSeconds),
        target_messages_per_second: 20000,
      }) + '\n',
    );
  } finally {
    app.search.stop();
    await app.bus.close();
    await app.store.close();
    if (!args.includes('--keep')) fs.rmSync(work, { recursive: true, force: true });
    else process.stdout.write(`kept ${work}\n`);
  }
}

await main();
