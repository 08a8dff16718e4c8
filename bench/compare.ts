// Alternates bench runs of another built checkout (`--server`) and this one, and prints each key's medians and their ratio.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { CACHE_DIR } from './fixture.js';
import { ROOT } from './server-process.js';
import { round } from './stats.js';

const USAGE = `usage: node dist/bench/compare.js --base DIR [--new DIR] [--rounds N] [--keys REGEX] [-- BENCH FLAGS…]
       node dist/bench/compare.js --base-files A.json,B.json --new-files C.json,D.json [--keys REGEX]
Runs the bench base, new, base, new, … (N rounds, default 5) with the same flags, the base's runs
against DIR's server (a built checkout: tsc run in it), the new ones against this checkout's (or
--new DIR's: a copy that a rebuild here cannot change mid-run), then prints per key the median of each side
and new/base. The run files stay in .bench-cache/compare/.`;

interface Args {
  base?: string;
  next?: string;
  rounds: number;
  keys: RegExp;
  benchArgs: string[];
  baseFiles: string[];
  newFiles: string[];
}

function parseArgs(argv: string[]): Args {
  const a: Args = { rounds: 5, keys: /./, benchArgs: [], baseFiles: [], newFiles: [] };
  for (let i = 0; i < argv.length; i++) {
    const f = argv[i];
    if (f === '--') {
      a.benchArgs = argv.slice(i + 1);
      break;
    } else if (f === '--base') a.base = path.resolve(argv[++i]);
    else if (f === '--new') a.next = path.resolve(argv[++i]);
    else if (f === '--rounds') a.rounds = Number(argv[++i]);
    else if (f === '--keys') a.keys = new RegExp(argv[++i]);
    else if (f === '--base-files') a.baseFiles = argv[++i].split(',');
    else if (f === '--new-files') a.newFiles = argv[++i].split(',');
    else throw new Error(`unknown flag ${f}\n${USAGE}`);
  }
  if (!a.base && !(a.baseFiles.length && a.newFiles.length)) throw new Error(USAGE);
  if (a.benchArgs.some((x) => x === '--out' || x === '--server')) throw new Error('--out and --server are set by compare');
  return a;
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((x, y) => x - y);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

function figures(file: string): Record<string, number> {
  const { info: _info, ...keys } = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
  return keys as Record<string, number>;
}

/** One bench run in a child process (its own server, fixture copy and watchdog); returns the result file. */
function runBench(label: string, server: string | undefined, benchArgs: string[], dir: string): string {
  const out = path.join(dir, `${label}.json`);
  const args = [path.join(ROOT, 'dist', 'bench', 'run.js'), ...benchArgs, ...(server ? ['--server', server] : []), '--out', out];
  process.stdout.write(`== ${label}${server ? ` (server ${server})` : ''}\n`);
  const r = spawnSync(process.execPath, args, { stdio: 'inherit', cwd: ROOT });
  if (r.status !== 0 || !fs.existsSync(out)) throw new Error(`bench run ${label} failed (${r.status})`);
  return out;
}

function report(baseFiles: string[], newFiles: string[], keys: RegExp): void {
  const base = baseFiles.map(figures);
  const next = newFiles.map(figures);
  const all = [...new Set([...base, ...next].flatMap((f) => Object.keys(f)))].filter((k) => keys.test(k)).sort();
  const rows = [['key', 'base median', 'new median', 'new/base', 'base runs', 'new runs']];
  for (const k of all) {
    const b = base.map((f) => f[k]).filter((x) => typeof x === 'number');
    const n = next.map((f) => f[k]).filter((x) => typeof x === 'number');
    if (!b.length || !n.length) continue;
    const mb = median(b);
    const mn = median(n);
    rows.push([k, String(round(mb)), String(round(mn)), mb ? round(mn / mb, 3).toFixed(3) : '-', b.join(' '), n.join(' ')]);
  }
  const w = rows[0].map((_, c) => Math.max(...rows.map((r) => r[c].length)));
  for (const r of rows) process.stdout.write(r.map((x, c) => (c === 0 || c > 3 ? x.padEnd(w[c]) : x.padStart(w[c]))).join('  ') + '\n');
}

function main(): void {
  const a = parseArgs(process.argv.slice(2));
  if (a.base) {
    const dir = path.join(CACHE_DIR, 'compare', new Date().toISOString().replace(/[:.]/g, '-'));
    fs.mkdirSync(dir, { recursive: true });
    for (let i = 0; i < a.rounds; i++) {
      a.baseFiles.push(runBench(`base-${i}`, a.base, a.benchArgs, dir));
      a.newFiles.push(runBench(`new-${i}`, a.next, a.benchArgs, dir));
    }
    process.stdout.write(`runs in ${path.relative(process.cwd(), dir) || dir}\n`);
  }
  report(a.baseFiles, a.newFiles, a.keys);
}

main();
