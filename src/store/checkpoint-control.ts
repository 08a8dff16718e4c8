// Starts and stops the WAL checkpoint worker (src/store/checkpointer.ts), restarting it if it dies.
import { Worker } from 'node:worker_threads';

const INTERVAL_MS = 250;

export function startCheckpointer(file: string): { stop(): Promise<void> } {
  let stopping = false;
  let worker = spawn();

  function spawn(): Worker {
    const w = new Worker(new URL('./checkpointer.js', import.meta.url), { workerData: { file, intervalMs: INTERVAL_MS }, resourceLimits: { maxOldGenerationSizeMb: 16 } });
    // The worker must not keep the process alive on its own.
    w.unref();
    w.on('error', (err: Error) => process.stderr.write(`checkpointer: ${err.message}\n`));
    w.on('exit', () => {
      if (!stopping) worker = spawn();
    });
    return w;
  }

  return {
    stop() {
      stopping = true;
      return new Promise<void>((resolve) => {
        const done = () => resolve();
        const timer = setTimeout(() => void worker.terminate().then(done), 2000);
        worker.once('message', () => {
          clearTimeout(timer);
          void worker.terminate().then(done);
        });
        worker.postMessage('stop');
      });
    },
  };
}
