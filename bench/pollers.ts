// Parent side of the long-poll children: spreads queues over child processes and gathers readiness, completions and latencies.
import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Cred } from './api.js';
import type { FromChild, ToChild, Transport } from './poller-child.js';

const SCRIPT = path.join(path.dirname(fileURLToPath(import.meta.url)), 'poller-child.js');

export interface PollerGroup {
  registered: number;
  failed: number;
  /** The children's process IDs (their CPU time is the clients' share of the machine). */
  pids: number[];
  firstError?: string;
  /** Resolves when every child saw message seq on all its queues (false after timeoutMs). */
  waitComplete(seq: number, timeoutMs: number): Promise<boolean>;
  stats(): Promise<{ waiting: number; received: number; polls: number; errors: number; stale: number; latencies: number[]; bySeq: Record<number, number> }>;
  stop(): Promise<void>;
}

function next<T extends FromChild['type']>(child: ChildProcess, type: T, timeoutMs: number): Promise<Extract<FromChild, { type: T }>> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.off('message', on);
      reject(new Error(`poller child: no "${type}" within ${timeoutMs} ms`));
    }, timeoutMs);
    const on = (m: FromChild) => {
      if (m.type !== type) return;
      clearTimeout(timer);
      child.off('message', on);
      resolve(m as Extract<FromChild, { type: T }>);
    };
    child.on('message', on);
  });
}

/** Starts ceil(creds / perChild) children, one queue per credential entry, and waits until all are polling. */
export async function startPollers(url: string, creds: Cred[], opts: { perChild?: number; registerConcurrency?: number; timeoutMs?: number; transport?: Transport; pollUrls?: string[] } = {}): Promise<PollerGroup> {
  const perChild = opts.perChild ?? 5000;
  const children: ChildProcess[] = [];
  const completions = new Map<number, number>();
  const waiters = new Set<() => void>();
  for (let i = 0; i < creds.length; i += perChild) {
    const child = fork(SCRIPT, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    child.on('message', (m: FromChild) => {
      if (m.type !== 'complete') return;
      completions.set(m.seq, (completions.get(m.seq) ?? 0) + 1);
      for (const w of waiters) w();
    });
    children.push(child);
    child.send({ type: 'init', url, creds: creds.slice(i, i + perChild), registerConcurrency: opts.registerConcurrency ?? 16, transport: opts.transport ?? 'h1', pollUrls: opts.pollUrls } satisfies ToChild);
  }
  const ready = await Promise.all(children.map((c) => next(c, 'ready', opts.timeoutMs ?? 600_000)));
  const ask = (m: ToChild) => children.forEach((c) => c.send(m));
  return {
    pids: children.map((c) => c.pid!),
    registered: ready.reduce((a, r) => a + r.registered, 0),
    failed: ready.reduce((a, r) => a + r.failed, 0),
    firstError: ready.find((r) => r.firstError)?.firstError,
    waitComplete(seq, timeoutMs) {
      return new Promise((resolve) => {
        const check = () => {
          if ((completions.get(seq) ?? 0) >= children.length) finish(true);
        };
        const timer = setTimeout(() => finish(false), timeoutMs);
        const finish = (ok: boolean) => {
          clearTimeout(timer);
          waiters.delete(check);
          resolve(ok);
        };
        waiters.add(check);
        check();
      });
    },
    async stats() {
      const replies = Promise.all(children.map((c) => next(c, 'stats', 60_000)));
      ask({ type: 'stats' });
      const all = await replies;
      const bySeq: Record<number, number> = {};
      for (const r of all) for (const [k, v] of Object.entries(r.bySeq)) bySeq[Number(k)] = (bySeq[Number(k)] ?? 0) + v;
      return {
        waiting: all.reduce((a, r) => a + r.waiting, 0),
        received: all.reduce((a, r) => a + r.received, 0),
        polls: all.reduce((a, r) => a + r.polls, 0),
        errors: all.reduce((a, r) => a + r.errors, 0),
        stale: all.reduce((a, r) => a + r.stale, 0),
        latencies: all.flatMap((r) => r.latencies),
        bySeq,
      };
    },
    async stop() {
      await Promise.all(
        children.map((c) => {
          const gone = new Promise<void>((resolve) => c.once('exit', () => resolve()));
          if (c.connected) c.send({ type: 'stop' } satisfies ToChild);
          const t = setTimeout(() => c.kill('SIGKILL'), 60_000);
          return gone.then(() => clearTimeout(t));
        }),
      );
    },
  };
}
