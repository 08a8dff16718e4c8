// Starts and stops a Parley server process (or any Node child), reads its RSS and file limit, and asks it for loop figures.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Repository root (dist/bench/… → ../..). */
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/**
 * The checkout whose server the bench runs (`--server DIR`): this one by default, or another
 * built checkout, so the same scenarios compare two builds. Its `parley create-realm` makes the
 * schema, so the fixture follows that build's migrations.
 */
let serverRoot = ROOT;
export function useServerRoot(dir: string): void {
  const bin = path.join(dir, 'bin', 'parley.js');
  if (!fs.existsSync(bin) || !fs.existsSync(path.join(dir, 'dist', 'src', 'main.js'))) throw new Error(`--server ${dir}: no built checkout there (run tsc in it first)`);
  serverRoot = path.resolve(dir);
}
export const getServerRoot = (): string => serverRoot;
const parleyBin = () => path.join(serverRoot, 'bin', 'parley.js');

export interface LoopFigures {
  max_stall_ms: number;
  p99_stall_ms: number;
  mean_delay_ms: number;
  samples: number;
  rss_mb: number;
  heap_used_mb: number;
  /** The longest garbage-collection pause and their sum since the last reading. */
  max_gc_pause_ms: number;
  gc_ms_total: number;
  /** 1 when the server ran with --expose-gc and the memory figures follow a full collection. */
  after_gc: number;
}

export interface ServerProcess {
  url: string;
  pid: number;
  child: ChildProcess;
  /** Asks the server (SIGUSR2) for its loop figures since the last ask, and resets them. */
  loopFigures(): Promise<LoopFigures>;
  stop(): Promise<void>;
}

/** Resident set size of a process in MB, from /proc/<pid>/status. */
export function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+)\s+kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

/**
 * CPU time a process has used (user + system, all threads), in ms, from /proc/<pid>/stat. Unlike
 * wall-clock rates it hardly moves when other work shares the machine, so it compares runs.
 */
export function cpuMs(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the parenthesized command name; utime and stime are the 14th and 15th fields.
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(f[11]) + Number(f[12])) * 1000) / CLOCK_TICKS;
}
/** USER_HZ: 100 on every Linux this runs on (the kernel reports times in these ticks). */
const CLOCK_TICKS = 100;

/** The soft limit on open files of a process, from /proc/<pid>/limits. */
export function fileLimit(pid: number): number {
  const m = /Max open files\s+(\d+|unlimited)/.exec(fs.readFileSync(`/proc/${pid}/limits`, 'utf8'));
  return !m ? 1024 : m[1] === 'unlimited' ? Infinity : Number(m[1]);
}

/** Runs a parley command (create-realm …) and returns its JSON output line. */
export function parleyCommand(args: string[], env: Record<string, string> = {}): Record<string, any> {
  const r = spawnSync(process.execPath, [parleyBin(), ...args], { encoding: 'utf8', env: { ...process.env, ...env }, timeout: 60_000 });
  if (r.status !== 0) throw new Error(`parley ${args[0]} failed: ${r.stderr || r.stdout}`);
  return JSON.parse(r.stdout.trim().split('\n').pop()!) as Record<string, any>;
}

/** Waits for a line matching re on a stream; rejects after timeoutMs or if the process exits first. */
function waitForLine(child: ChildProcess, stream: NodeJS.ReadableStream, re: RegExp, timeoutMs: number): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    let buf = '';
    const onData = (chunk: Buffer) => {
      buf += chunk.toString('utf8');
      const m = re.exec(buf);
      if (m) {
        done();
        resolve(m);
      }
    };
    const onExit = (code: number | null) => {
      done();
      reject(new Error(`process exited (${code}) before printing ${re}: ${buf.slice(-2000)}`));
    };
    const timer = setTimeout(() => {
      done();
      reject(new Error(`timed out waiting for ${re}: ${buf.slice(-2000)}`));
    }, timeoutMs);
    const done = () => {
      clearTimeout(timer);
      stream.off('data', onData);
      child.off('exit', onExit);
    };
    stream.on('data', onData);
    child.once('exit', onExit);
  });
}

/**
 * One user sends thousands of messages a second here, far past the default per-user limit: the
 * limits stay on (their cost is part of what is measured) with allowances no load reaches.
 */
const BENCH_RATE_LIMITS = { PARLEY_RATE_LIMIT_API: '1000000000/60', PARLEY_RATE_LIMIT_UNAUTHENTICATED: '1000000000/60', PARLEY_RATE_LIMIT_AUTHENTICATION: '1000000000/60' };

export interface StartOptions {
  dataDir: string;
  databaseUrl?: string;
  nodeArgs?: string[];
  /** More `parley serve` flags (--bus-url, --node-id …). */
  args?: string[];
  env?: Record<string, string>;
}

/** Starts `parley serve --port 0` on loopback with the loop monitor on and no bootstrap organization. */
export async function startParley(opts: StartOptions): Promise<ServerProcess> {
  // --expose-gc lets the loop monitor collect garbage before reporting memory.
  const args = ['--expose-gc', ...(opts.nodeArgs ?? []), parleyBin(), 'serve', '--host', '127.0.0.1', '--port', '0', '--data-dir', opts.dataDir];
  if (opts.databaseUrl) args.push('--database-url', opts.databaseUrl);
  args.push(...(opts.args ?? []));
  const child = spawn(process.execPath, args, {
    cwd: serverRoot,
    env: { ...process.env, PARLEY_BOOTSTRAP: '0', PARLEY_LOOP_MONITOR: '1', ...BENCH_RATE_LIMITS, ...opts.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const errLines: string[] = [];
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (s: string) => {
    for (const line of s.split('\n')) {
      if (line && !line.startsWith('parley-loop-monitor')) {
        errLines.push(line);
        if (errLines.length <= 20) process.stderr.write(`[server] ${line}\n`);
      }
    }
  });
  child.stdout!.resume();
  const m = await waitForLine(child, child.stdout!, /listening on (http:\/\/[^\s]+)/, 60_000);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    url: m[1],
    pid: child.pid!,
    child,
    async loopFigures() {
      const line = waitForLine(child, child.stderr!, /parley-loop-monitor (\{[^\n]*\})\n/, 10_000);
      child.kill('SIGUSR2');
      return JSON.parse((await line)[1]) as LoopFigures;
    },
    async stop() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      const t = setTimeout(() => child.kill('SIGKILL'), 20_000);
      await exited;
      clearTimeout(t);
    },
  };
}
