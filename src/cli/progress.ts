// A progress bar on stderr for long commands; it draws nothing unless stderr is a terminal.
import ProgressBar from 'progress';

export interface Progress {
  /** done of total units so far. */
  update(done: number, total: number): void;
  finish(): void;
}

export function progressBar(label: string): Progress {
  let bar: ProgressBar | null = null;
  return {
    update(done, total) {
      if (total <= 0) return;
      // The bar's total is fixed when made; SQLite's page count can grow during a backup.
      if (!bar || bar.total !== total) bar = new ProgressBar(`${label} [:bar] :percent`, { total, width: 30, stream: process.stderr, clear: true });
      bar.update(Math.min(1, done / total));
    },
    finish() {
      if (bar && !bar.complete) bar.terminate();
    },
  };
}
