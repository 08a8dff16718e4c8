// Where log lines go on a pipe or a file: gathered during an event-loop turn and written with one system call at its end.
import fs from 'node:fs';

/** Lines kept while the output cannot take them (a full non-blocking pipe); beyond this, new ones are dropped and counted. */
const MAX_PENDING_CHARS = 16 * 1024 * 1024;
const RETRY_MS = 10;

/**
 * Why not pino.destination (sonic-boom): asynchronous, it hands each write to libuv's thread pool,
 * and at a few lines a turn nearly every line is its own write: about 4 µs of CPU a line on top
 * of formatting it, measured with the lines of a send and a long-poll answer; synchronous, a
 * system call a line, about 3 µs. Gathered here and written once a turn, about 1 µs
 * (docs/decisions.md, "Logs and metrics"). A line waits at most until the end of its turn.
 */
export class TurnBatchedOutput {
  private pending = '';
  /** Bytes a full non-blocking pipe did not take yet (written before anything newer). */
  private rest: Buffer | null = null;
  private scheduled = false;
  private retry: NodeJS.Timeout | null = null;
  private dropped = 0;
  /** The output failed otherwise (closed: EPIPE, EBADF): lines are let go, not thrown at the loop. */
  private broken = false;
  private readonly flushSoon = () => {
    this.scheduled = false;
    this.flush();
  };

  constructor(private readonly fd: number) {
    // Whatever is gathered when the process exits (process.exit included) still goes out.
    process.once('exit', () => this.flush());
  }

  write(line: string): void {
    if (this.broken) return;
    if (this.pending.length + (this.rest?.length ?? 0) > MAX_PENDING_CHARS) {
      this.dropped++;
      return;
    }
    this.pending += line;
    if (!this.scheduled && this.retry === null) {
      this.scheduled = true;
      setImmediate(this.flushSoon);
    }
  }

  /** Writes what is gathered now. */
  flush(): void {
    if (this.broken) return;
    if (this.dropped) {
      this.pending += JSON.stringify({ level: 40, time: Date.now(), msg: `log output was full: ${this.dropped} lines dropped` }) + '\n';
      this.dropped = 0;
    }
    if (!this.pending && !this.rest) return;
    const fresh = this.pending ? Buffer.from(this.pending) : null;
    const buf = this.rest && fresh ? Buffer.concat([this.rest, fresh]) : (this.rest ?? fresh!);
    this.pending = '';
    this.rest = null;
    let offset = 0;
    while (offset < buf.length) {
      try {
        // Node writes to pipes and files synchronously too (process.stdout on Linux): one call for the turn's lines.
        offset += fs.writeSync(this.fd, buf, offset);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EAGAIN') {
          this.broken = true;
          return;
        }
        // A non-blocking pipe is full: the loop goes on, the bytes wait (a partial line stays whole: bytes, not text).
        this.rest = buf.subarray(offset);
        this.retry ??= setTimeout(() => {
          this.retry = null;
          this.flush();
        }, RETRY_MS);
        return;
      }
    }
  }
}
