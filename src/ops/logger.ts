// The process's logger (pino): JSON lines on stdout, or readable lines when stdout is a terminal.
import { createRequire } from 'node:module';
import { pino, type DestinationStream, type Logger, type LoggerOptions } from 'pino';

export type { Logger };

/** The levels PARLEY_LOG_LEVEL and --log-level accept (pino's, plus "silent"). */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

export function isLogLevel(s: string): s is (typeof LOG_LEVELS)[number] {
  return (LOG_LEVELS as readonly string[]).includes(s);
}

export interface LoggerSettings {
  level: string;
  /** Where lines go; stdout when absent (tests pass a stream they read). */
  destination?: DestinationStream;
}

/**
 * Why these options: no pid/hostname on every line (the service manager knows both), and a
 * numeric timestamp, which pino writes without formatting a date for each line. On a pipe or a
 * file the writes are asynchronous: lines written while one write is in flight go out together,
 * so thousands of long-poll answers a second cost a few system calls, not one each (pino
 * flushes what is pending when the process exits).
 */
export function createLogger(settings: LoggerSettings): Logger {
  const options: LoggerOptions = { level: settings.level, base: null };
  if (settings.destination) return pino(options, settings.destination);
  if (process.stdout.isTTY) return pino(options, prettyStream());
  return pino(options, pino.destination({ dest: 1, sync: false }));
}

/** pino-pretty in this thread (no worker): loaded only for a terminal, where nobody measures throughput. */
function prettyStream(): DestinationStream {
  const pretty = createRequire(import.meta.url)('pino-pretty') as (opts: Record<string, unknown>) => DestinationStream;
  return pretty({ colorize: true, sync: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' });
}
