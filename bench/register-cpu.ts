// In-process CPU of POST /register's parts for the bench's register users: each state fetcher, the JSON text and its compression. Usage: node dist/bench/register-cpu.js [--rounds N] [--quick] [--case unread|10,000|1,000] [--compression]
import fs from 'node:fs';
import { sql } from 'kysely';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { loadConfig } from '../src/config.js';
import { openApp } from '../src/main.js';
import { readState, type RegisterInput } from '../src/events/register.js';
import { STATE_FETCHERS } from '../src/lib/state/index.js';
import type { StateFetcher } from '../src/lib/state/context.js';
import { createLogger } from '../src/ops/logger.js';
import { serializeWithJsonText } from '../src/core/json-text.js';
import { sqliteFixture } from './fixture.js';
import { FULL, QUICK } from './sizes.js';
import type { FixtureMeta, RealmMeta } from './bulk-load.js';

/** The main thread's CPU only: the database's checkpoint and search-merge workers run beside it. */
const cpuNow = () => {
  const c = process.threadCpuUsage();
  return (c.user + c.system) / 1000;
};
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

/** A register with every state type and the parameters' defaults, as the bench's POST /register sends it. */
const INPUT: RegisterInput = {
  applyMarkdown: false,
  clientGravatar: true,
  includeSubscribers: false,
  slimPresence: false,
  presenceHistoryLimitDays: 14,
  eventTypes: null,
  fetchEventTypes: null,
  allPublicStreams: false,
  capabilities: {},
  narrow: [],
  idleQueueTimeout: null,
  clientName: 'bench',
};

/** The codings --compression compares on each answer (CPU and size). */
const brotli = (q: number) => (b: Buffer) => zlib.brotliCompressSync(b, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: q, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: b.length } });
const CODINGS: [string, (b: Buffer) => Buffer][] = [
  ['brotli 0', brotli(0)],
  ['brotli 1', brotli(1)],
  ['brotli 2', brotli(2)],
  ['brotli 4', brotli(4)],
  ['gzip 1', (b) => zlib.gzipSync(b, { level: 1 })],
  ['gzip 6', (b) => zlib.gzipSync(b, { level: 6 })],
];

/** Each fetcher's CPU is added to `spent` under its first type while `spent` is set. */
let spent: Map<string, number> | null = null;
function instrument(f: StateFetcher): void {
  const inner = f.fetch.bind(f);
  const name = f.types[0] ?? 'always';
  f.fetch = async (ctx) => {
    const t0 = cpuNow();
    const out = await inner(ctx);
    if (spent) spent.set(name, (spent.get(name) ?? 0) + cpuNow() - t0);
    return out;
  };
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const rounds = argv.includes('--rounds') ? Number(argv[argv.indexOf('--rounds') + 1]) : 15;
  const z = argv.includes('--quick') ? QUICK : FULL;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-regcpu-'));
  try {
    const meta: FixtureMeta = await sqliteFixture(dataDir, z, (s) => process.stderr.write(s + '\n'));
    const app = await openApp(loadConfig({ 'data-dir': dataDir, bootstrap: '0' }), undefined, createLogger({ level: 'warn' }));
    for (const f of STATE_FETCHERS) instrument(f as StateFetcher);
    // The unread member's state is kept between registers (lib/messages/unread-cache.ts): also
    // measured with a new message in one of its channels before each register (read past what was
    // kept), with one channel's kept state made stale before each (as after reading in it), and with
    // all of it stale (as after a message was moved or deleted in the organization).
    const b = meta.backlog;
    const member = b.firstUserId;
    const backlogChannel = Object.values(b.channels)[0];
    const newMessage = async () => {
      await app.store.write(async (tx) => {
        const st = await tx.selectFrom('streams').select(['id', 'recipient_id']).where('id', '=', backlogChannel).executeTakeFirstOrThrow();
        const m = await tx
          .insertInto('messages')
          .values({ realm_id: b.id, type: 1, recipient_id: st.recipient_id, stream_id: st.id, sender_id: member + 1, topic: 'arriving', topic_key: 'arriving', content: 'new', rendered_content: '<p>new</p>', date_sent: 1, sending_client: 'bench', last_edit_time: null, last_moved_time: null, edit_history: null, is_me_message: 0, has_link: 0, has_image: 0, has_attachment: 0 })
          .returning('id')
          .executeTakeFirstOrThrow();
        await tx.insertInto('user_messages').values({ message_id: m.id, user_id: member, flags: 0 }).execute();
      });
    };
    const channelRead = async () => {
      await app.store.write((tx) => sql`INSERT INTO unread_versions (user_id, stream_id, version) VALUES (${member}, ${backlogChannel}, 1) ON CONFLICT (user_id, stream_id) DO UPDATE SET version = version + 1`.execute(tx));
    };
    const stale = async () => {
      await app.store.write((tx) => sql`INSERT INTO unread_versions (user_id, stream_id, version) VALUES (${member}, 0, 1) ON CONFLICT (user_id, stream_id) DO UPDATE SET version = version + 1`.execute(tx));
    };
    const cases: [string, RealmMeta, (() => Promise<void>)?][] = [
      ['unread member', b],
      ['unread member, a new message before each', b, newMessage],
      ['unread member, one channel stale before each', b, channelRead],
      ['unread member, kept state stale before each', b, stale],
      ['10,000 people', meta.fan],
      ['1,000 people', meta.reg],
    ];
    const compression = argv.includes('--compression');
  const only = argv.includes('--case') ? argv[argv.indexOf('--case') + 1] : '';
    for (const [label, r, before] of cases) {
      if (only && !label.includes(only)) continue;
      const email = `${r.key}-u0@bench.example.com`;
      const user = await app.store.db.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirstOrThrow();
      const realm = await app.store.db.selectFrom('realms').selectAll().where('id', '=', user.realm_id).executeTakeFirstOrThrow();
      const parts = new Map<string, number[]>();
      const add = (k: string, v: number) => parts.set(k, [...(parts.get(k) ?? []), v]);
      for (let i = -3; i < rounds; i++) {
        if (before) await before();
        spent = new Map();
        const t0 = cpuNow();
        const state = await readState(app, realm, user, INPUT);
        const t1 = cpuNow();
        // The answer as it goes out: UTF-8 bytes (server.ts writes text the same way).
        const out = serializeWithJsonText({ result: 'success', msg: '', ...state });
        const raw = typeof out === 'string' ? Buffer.from(out) : out;
        const t2 = cpuNow();
        zlib.brotliCompressSync(raw, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 1, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: raw.length } });
        const t3 = cpuNow();
        if (i < 0) continue;
        for (const [k, v] of spent) add(k, v);
        add('= state', t1 - t0);
        add('= answer bytes', t2 - t1);
        add('= state + answer bytes', t2 - t0);
        add('= brotli 1', t3 - t2);
        add(`(answer KB ${Math.round(raw.length / 1024)})`, 0);
        if (compression) {
          for (const [name, fn] of CODINGS) {
            const c0 = cpuNow();
            const out = fn(raw);
            add(`~ ${name} ms`, cpuNow() - c0);
            add(`~ ${name} KB`, Math.round(out.length / 1024));
          }
        }
      }
      spent = null;
      process.stdout.write(`${label} (median CPU ms of ${rounds}):\n`);
      const rows = [...parts.entries()].map(([k, v]) => [k, median(v)] as const).sort((a, b) => (a[0].startsWith('=') === b[0].startsWith('=') ? b[1] - a[1] : a[0].startsWith('=') ? 1 : -1));
      for (const [k, v] of rows) if (v >= 0.05 || k.startsWith('=') || k.startsWith('(')) process.stdout.write(`  ${k.padEnd(34)} ${v.toFixed(2)}\n`);
    }
    await app.store.close();
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  process.exit(0);
}

void main();
