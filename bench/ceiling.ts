// The machine's ceilings: bare node:http servers (child processes) measured with the same load tool and settings as the Parley runs.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runLoad, type LoadResult } from './load.js';

export interface BareServer {
  url: string;
  pid: number;
  /** The longest event-loop stall since the last call, ms (for a server that reports it on SIGUSR2). */
  loopStallMs(): Promise<number>;
  stop(): void;
}

/** Starts bench/<script> (which prints "listening on URL") as a child process. */
export async function startBareServer(script: string): Promise<BareServer> {
  const child = spawn(process.execPath, [path.join(path.dirname(fileURLToPath(import.meta.url)), script)], { stdio: ['ignore', 'pipe', 'inherit'] });
  const stop = () => void child.kill('SIGTERM');
  // Lines the server prints after "listening on", for loopStallMs.
  const lines: ((line: string) => void)[] = [];
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let buf = '';
      child.stdout!.on('data', (c: Buffer) => {
        buf += c.toString();
        const m = /listening on (\S+)\n/.exec(buf);
        if (m) resolve(m[1]);
        for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
          const line = buf.slice(0, nl);
          buf = buf.slice(nl + 1);
          lines.shift()?.(line);
        }
      });
      child.once('exit', (code) => reject(new Error(`${script} exited (${code})`)));
    });
    const loopStallMs = () =>
      new Promise<number>((resolve) => {
        lines.push((line) => resolve((JSON.parse(line.replace(/^loop /, '')) as { max_stall_ms: number }).max_stall_ms));
        child.kill('SIGUSR2');
      });
    return { url, pid: child.pid!, loopStallMs, stop };
  } catch (err) {
    stop();
    throw err;
  }
}

export async function measureCeiling(connections: number, seconds: number): Promise<LoadResult> {
  const bare = await startBareServer('bare-server.js');
  try {
    return await runLoad({ url: bare.url + '/', connections, seconds });
  } finally {
    bare.stop();
  }
}
