// Backup and restore of the embedded SQLite database with SQLite's online backup API.
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { SQLITE_FILE } from '../store/sqlite-connection.js';
import { CommandError } from './common.js';
import type { Progress } from './progress.js';

/** Pages copied per step while no other connection writes (4 MiB of 4 KiB pages). */
const PAGES_PER_STEP = 1024;

/**
 * Copies the live database to dest while the server runs. A write by another connection makes
 * SQLite restart the copy; after the first restart the rest is copied in one step, which reads one
 * consistent snapshot (WAL readers do not block writers), so a busy server cannot starve it.
 */
export async function backupSqlite(dataDir: string, dest: string, progress: Progress): Promise<void> {
  const file = path.join(dataDir, SQLITE_FILE);
  if (!fs.existsSync(file)) throw new CommandError(`no database at ${file}`);
  const source = new Database(file, { fileMustExist: true });
  source.pragma('busy_timeout = 5000');
  let lastRemaining = Infinity;
  let restarted = false;
  let total = 0;
  try {
    await source.backup(dest, {
      progress({ totalPages, remainingPages }) {
        total = totalPages;
        if (remainingPages > lastRemaining) restarted = true;
        lastRemaining = remainingPages;
        progress.update(totalPages - remainingPages, totalPages);
        return restarted ? Math.max(totalPages, 1) : PAGES_PER_STEP;
      },
    });
    // The callback runs between steps, so the last step's completion is shown here.
    progress.update(total, total);
  } finally {
    source.close();
    progress.finish();
  }
  // The copy is a self-contained file: no WAL beside it.
  const copy = new Database(dest);
  copy.pragma('journal_mode = DELETE');
  copy.close();
}

/** Whether path holds a Parley SQLite database that passes SQLite's quick check. */
export function checkSqliteBackup(file: string): void {
  let db: Database.Database;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true });
  } catch (err) {
    throw new CommandError(`cannot open ${file}: ${(err as Error).message}`);
  }
  try {
    const ok = db.pragma('quick_check', { simple: true });
    if (ok !== 'ok') throw new CommandError(`${file} is damaged: ${String(ok)}`);
    db.prepare('SELECT count(*) FROM parley_migrations').get();
  } catch (err) {
    if (err instanceof CommandError) throw err;
    throw new CommandError(`${file} is not a Parley SQLite backup: ${(err as Error).message}`);
  } finally {
    db.close();
  }
}

/** Replaces the data directory's database with the backup's content (the server must be stopped). */
export async function restoreSqlite(backup: string, dataDir: string, progress: Progress): Promise<void> {
  checkSqliteBackup(backup);
  fs.mkdirSync(dataDir, { recursive: true });
  const source = new Database(backup, { readonly: true, fileMustExist: true });
  let total = 0;
  try {
    await source.backup(path.join(dataDir, SQLITE_FILE), {
      progress({ totalPages, remainingPages }) {
        total = totalPages;
        progress.update(totalPages - remainingPages, totalPages);
        return PAGES_PER_STEP;
      },
    });
    progress.update(total, total);
  } finally {
    source.close();
    progress.finish();
  }
}
