// Worker thread that checkpoints the SQLite WAL into the database file, so the fsyncs this needs
// happen off the main thread, and merges the search index's segments (search-merge.ts) in small
// steps. Started by the store with the database path.
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { searchMerger } from './search-merge.js';

const { file, intervalMs } = workerData as { file: string; intervalMs: number };
/** Between two merge steps the write lock is free this long, for the main thread's writers (they try every millisecond). */
const MERGE_GAP_MS = 5;

const db = new Database(file);
db.pragma('busy_timeout = 1000');
db.pragma('wal_autocheckpoint = 0');
const merger = searchMerger(db);
let stopped = false;
let merging = false;

function checkpoint(): void {
  try {
    // PASSIVE never waits for the writer; frames it cannot copy yet are copied next time, and the
    // writer restarts the WAL from the beginning once everything was copied.
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch {
    // A busy database is fine: the next round catches up.
  }
}

/** Merges step by step until no level needs it; a step that fails (busy) leaves the rest to the next round. */
function mergeSearchIndex(): void {
  if (!merger || merging) return;
  merging = true;
  const next = () => {
    let worked: boolean;
    try {
      worked = !stopped && merger.step();
    } catch {
      worked = false;
    }
    if (worked) setTimeout(next, MERGE_GAP_MS);
    else merging = false;
  };
  next();
}

const timer = setInterval(() => {
  checkpoint();
  mergeSearchIndex();
}, intervalMs);
parentPort?.on('message', (msg: string) => {
  if (msg === 'stop') {
    stopped = true;
    clearInterval(timer);
    checkpoint();
    db.close();
    parentPort?.postMessage('stopped');
  }
});
