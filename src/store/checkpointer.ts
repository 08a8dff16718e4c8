// Worker thread that checkpoints the SQLite WAL into the database file, so the fsyncs this needs
// happen off the main thread. Started by the store with the database path.
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';

const { file, intervalMs } = workerData as { file: string; intervalMs: number };
const db = new Database(file);
db.pragma('busy_timeout = 1000');
db.pragma('wal_autocheckpoint = 0');

function checkpoint(): void {
  try {
    // PASSIVE never waits for the writer; frames it cannot copy yet are copied next time, and the
    // writer restarts the WAL from the beginning once everything was copied.
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch {
    // A busy database is fine: the next round catches up.
  }
}

const timer = setInterval(checkpoint, intervalMs);
parentPort?.on('message', (msg: string) => {
  if (msg === 'stop') {
    clearInterval(timer);
    checkpoint();
    db.close();
    parentPort?.postMessage('stopped');
  }
});
