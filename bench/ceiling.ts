// Measures the bare node:http ceiling with the same load tool and settings as the Parley runs.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runLoad, type LoadResult } from './load.js';

export async function measureCeiling(connections: number, seconds: number): Promise<LoadResult> {
  const script = path.join(path.dirname(fileURLToPath(import.meta.url)), 'bare-server.js');
  const child = spawn(process.execPath, [script], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let buf = '';
      child.stdout!.on('data', (c: Buffer) => {
        buf += c.toString();
        const m = /listening on (\S+)/.exec(buf);
        if (m) resolve(m[1]);
      });
      child.once('exit', (code) => reject(new Error(`bare server exited (${code})`)));
    });
    return await runLoad({ url: url + '/', connections, seconds });
  } finally {
    child.kill('SIGTERM');
  }
}
