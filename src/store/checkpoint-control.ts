// Starts and stops the WAL checkpoint worker (src/store/checkpointer.ts), restarting it if it dies.
// The worker (an isolate of about 10 MB) starts only once the WAL has grown: an idle or lightly
// used server never pays for it, and the WAL it leaves is checkpointed when the database closes.
import fs from 'node:fs';
import { Worker } from 'node:worker_threads';

const INTERVAL_MS = 250;
/** WAL size from which checkpoints are worth a thread. */
const START_AT_BYTES = 4 * 1024 * 1024;
/** How often writers may look at the WAL's size. */
const LOOK_EVERY_MS = 1000;

export interface Checkpointer {
  /** Called after commits: starts the worker when the WAL has grown. Cheap; rate-limited. */
  poke(): void;
  stop(): Promise<void>;
}

export function startCheckpointer(file: string, warn: (msg: string) => void): Checkpointer {
  let stopping = false;
  let worker: Worker | null = null;
  let lastLook = 0;

  function spawn(): Worker {
    const w = new Worker(new URL('./checkpointer.js', import.meta.url), { workerData: { file, intervalMs: INTERVAL_MS }, resourceLimits: { maxOldGenerationSizeMb: 16 } });
    // The worker must not keep the process alive on its own.
    w.unref();
    w.on('error', (err: Error) => warn(`checkpointer: ${err.message}`));
    w.on('exit', () => {
      if (!stopping) worker = spawn();
    });
    return w;
  }

  return {
    poke() {
      if (worker || stopping) return;
      const now = Date.now();
      if (now - lastLook < LOOK_EVERY_MS) return;
      lastLook = now;
      const size = fs.statSync(`${file}-wal`, { throwIfNoEntry: false })?.size ?? 0;
      if (size >= START_AT_BYTES) worker = spawn();
    },
    stop() {
      stopping = true;
      const w = worker;
      if (!w) return Promise.resolve();
      return new Promise<void>((resolve) => {
        const done = () => resolve();
        const timer = setTimeout(() => void w.terminate().then(done), 2000);
        w.once('message', () => {
          clearTimeout(timer);
          void w.terminate().then(done);
        });
        w.postMessage('stop');
      });
    },
  };
}
