// The machine's ceilings: bare node:http servers (child processes) measured with the same load tool and settings as the Parley runs.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runLoad, type LoadResult } from './load.js';

export interface BareServer {
  url: string;
  pid: number;
  stop(): void;
}

/** Starts bench/<script> (which prints "listening on URL") as a child process. */
export async function startBareServer(script: string): Promise<BareServer> {
  const child = spawn(process.execPath, [path.join(path.dirname(fileURLToPath(import.meta.url)), script)], { stdio: ['ignore', 'pipe', 'inherit'] });
  const stop = () => void child.kill('SIGTERM');
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let buf = '';
      child.stdout!.on('data', (c: Buffer) => {
        buf += c.toString();
        const m = /listening on (\S+)/.exec(buf);
        if (m) resolve(m[1]);
      });
      child.once('exit', (code) => reject(new Error(`${script} exited (${code})`)));
    });
    return { url, pid: child.pid!, stop };
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
