// Running the parley command line in tests: in this process (runCli) or as child processes.
import net from 'node:net';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { runCli } from '../../src/cli.js';

export const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../..');
export const parleyBin = path.join(root, 'bin/parley.js');

export interface CliResult {
  code: number;
  lines: string[];
  stderr: string;
}

/** Runs the command line in this process with the given environment (default: none of the caller's PARLEY_*). */
export async function cli(args: string[], env: Record<string, string | undefined> = {}): Promise<CliResult> {
  const lines: string[] = [];
  let stderr = '';
  const code = await runCli(args, (s) => lines.push(s), { env, stderr: (s) => (stderr += s) });
  return { code, lines, stderr };
}

/** The one JSON line a data command printed, after checking it succeeded and printed only that. */
export function jsonLine(r: CliResult): any {
  if (r.code !== 0 || r.lines.length !== 1) throw new Error(`expected one line and exit 0, got ${r.code}: ${JSON.stringify(r.lines)} ${r.stderr}`);
  return JSON.parse(r.lines[0]);
}

/** Runs bin/parley.js as a child process; resolves with its exit code and output. */
export function cliProcess(args: string[], env: Record<string, string> = {}, opts: { cwd?: string } = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [parleyBin, ...args], { env: { ...process.env, ...env }, cwd: opts.cwd });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

/** A TCP port nothing listens on right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}
