// Backup and restore of a PostgreSQL database with pg_dump and pg_restore (custom format).
import { spawn } from 'node:child_process';
import pg from 'pg';
import { CommandError } from './common.js';
import type { Progress } from './progress.js';

/** Runs a PostgreSQL client tool; calls onLine for each stderr line (its --verbose progress). */
function runTool(tool: string, args: string[], onLine: (line: string) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(tool, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    const errors: string[] = [];
    let buffered = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      buffered += chunk;
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) {
        onLine(line);
        if (/error|fatal/i.test(line)) errors.push(line);
      }
    });
    child.once('error', (err: NodeJS.ErrnoException) => {
      reject(err.code === 'ENOENT' ? new CommandError(`${tool} is not installed (Debian: apt-get install postgresql-client, of the server's major version or newer)`) : err);
    });
    child.once('close', (code) => {
      if (code === 0) resolve();
      else reject(new CommandError(`${tool} failed (exit ${code}): ${errors.slice(-3).join(' | ') || buffered}`));
    });
  });
}

async function tableCount(databaseUrl: string): Promise<number> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const r = await client.query<{ n: string }>("SELECT count(*) AS n FROM pg_tables WHERE schemaname = 'public'");
    return Number(r.rows[0].n);
  } finally {
    await client.end();
  }
}

/** pg_dump of the whole database into dest, from one consistent snapshot; progress counts tables. */
export async function backupPostgres(databaseUrl: string, dest: string, progress: Progress): Promise<void> {
  const total = await tableCount(databaseUrl);
  let done = 0;
  try {
    await runTool('pg_dump', ['--format=custom', '--no-owner', '--no-privileges', '--verbose', `--file=${dest}`, `--dbname=${databaseUrl}`], (line) => {
      if (/dumping contents of table/.test(line)) progress.update(++done, total);
    });
    progress.update(total, total);
  } finally {
    progress.finish();
  }
}

/** How many tables' data a pg_dump archive holds (its table of contents); an error if it is none. */
function archiveTables(backup: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn('pg_restore', ['--list', backup], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (err += c));
    child.once('error', (e: NodeJS.ErrnoException) => reject(e.code === 'ENOENT' ? new CommandError('pg_restore is not installed (Debian: apt-get install postgresql-client)') : e));
    child.once('close', (code) => {
      if (code === 0) resolve(out.split('\n').filter((l) => / TABLE DATA /.test(l)).length);
      else reject(new CommandError(`${backup} is not a pg_dump archive: ${err.trim()}`));
    });
  });
}

/** pg_restore of a backup into the database, replacing what it holds, in one transaction. */
export async function restorePostgres(backup: string, databaseUrl: string, progress: Progress): Promise<void> {
  const total = await archiveTables(backup);
  let done = 0;
  try {
    await runTool('pg_restore', ['--clean', '--if-exists', '--no-owner', '--no-privileges', '--single-transaction', '--exit-on-error', '--verbose', `--dbname=${databaseUrl}`, backup], (line) => {
      if (/processing data for table/.test(line)) progress.update(++done, total);
    });
    progress.update(total, total);
  } finally {
    progress.finish();
  }
}
