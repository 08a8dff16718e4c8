// A background job that drains due work every interval on every node, one pass at a time, and finishes its pass on stop.
export interface Worker {
  stop(): Promise<void>;
}

export interface PollingWorker extends Worker {
  /** Runs a pass now (or joins the one running) and resolves when it ends. */
  runNow(): Promise<void>;
}

/** Starts `pass` now and every `intervalMs`; a pass still running when the timer fires is not doubled. */
export function startPollingWorker(name: string, pass: (stopped: () => boolean) => Promise<void>, log: (msg: string) => void, intervalMs: number): PollingWorker {
  let running: Promise<void> | null = null;
  let stopped = false;
  const isStopped = () => stopped;
  const tick = (): Promise<void> => {
    if (stopped) return Promise.resolve();
    running ??= (async () => {
      try {
        await pass(isStopped);
      } catch (err) {
        log(`${name}: ${err instanceof Error ? err.stack : String(err)}`);
      } finally {
        running = null;
      }
    })();
    return running;
  };
  const timer = setInterval(() => void tick(), intervalMs);
  timer.unref();
  void tick();
  return {
    runNow: tick,
    async stop() {
      stopped = true;
      clearInterval(timer);
      // Finish the pass in progress before the database closes.
      await running;
    },
  };
}
