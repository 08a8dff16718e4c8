// `parley serve`: migrates, creates a first organization on an empty database, and runs the server.
import { Command, InvalidArgumentError } from 'commander';
import { startServer } from '../main.js';
import { configOf, withApp, withServerOptions, type CliIO } from './common.js';
import { bootstrapIfEmpty } from './owner-login.js';

export function serveCommand(io: CliIO, onTerminal: boolean): Command {
  return withServerOptions(
    new Command('serve')
      .description('run the server (applies pending migrations first)')
      .option('--bootstrap <0|1>', 'create a first organization on an empty database (PARLEY_BOOTSTRAP; default 1)', (v: string) => {
        if (v !== '0' && v !== '1') throw new InvalidArgumentError('expected 0 or 1.');
        return v;
      })
      .option('--log-level <level>', 'lowest level logged: fatal, error, warn, info, debug, trace or silent (PARLEY_LOG_LEVEL; default info)')
      .option('--metrics', 'answer GET /metrics in Prometheus format (PARLEY_METRICS=1)')
      .option('--email-gateway-listen <host:port>', 'receive mail for channel and reply addresses over SMTP on this address (PARLEY_EMAIL_GATEWAY_LISTEN; default off)'),
  ).action(async (opts) => {
    const config = configOf({ ...opts, metrics: opts.metrics ? '' : undefined }, io.env);
    if (config.bootstrap) await withApp(config, (app) => bootstrapIfEmpty(app, io.print, onTerminal));
    const server = await startServer(config);
    io.print(`Parley is listening on ${server.url} (data: ${config.databaseUrl ? 'PostgreSQL' : config.dataDir})`);
    // SIGTERM: stop accepting, answer requests under way, store the queues, exit; bounded in time.
    const stop = async () => {
      setTimeout(() => process.exit(1), config.shutdownTimeoutMs + 10_000).unref();
      await server.close();
      process.exit(0);
    };
    process.once('SIGINT', () => void stop());
    process.once('SIGTERM', () => void stop());
    io.code = -1;
  });
}
