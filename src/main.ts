// Composition root: configuration → database → bus and queues → HTTP server; and orderly shutdown.
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import type { Config } from './config.js';
import { systemClock, type AppContext, type Clock } from './context.js';
import { Store } from './store/store.js';
import { QueueRegistry } from './events/registry.js';
import { openBus } from './events/bus.js';
import { Caches } from './lib/caches.js';
import { RateLimiter } from './lib/rate-limit.js';
import { RequestRateLimits } from './lib/request-rate-limits.js';
import { createOutbox } from './lib/mail/outbox.js';
import { createRequestHandler } from './http/server.js';
import { createListener } from './http/listener.js';
import { createWebHandler } from './http/web/handler.js';
import { buildRouter } from './http/routes.js';
import { startLoopMonitor } from './workers/loop-monitor.js';
import { startReminderWorker } from './workers/reminders.js';
import { startScheduledMessageWorker } from './workers/scheduled-messages.js';
import { startEmailWorker } from './workers/email-notifications.js';
import { loadImageProxy } from './lib/image-proxy/secret.js';
import { startQueuePresence } from './workers/queue-presence.js';
import { SearchIndexer } from './lib/messages/search-indexer.js';
import { createLogger, type Logger } from './ops/logger.js';
import { OpsCounters } from './ops/counters.js';
import { openFileStorage } from './lib/storage/open.js';

export interface RunningServer {
  app: AppContext;
  url: string;
  port: number;
  /** The email gateway's port, when it listens (PARLEY_EMAIL_GATEWAY_LISTEN). */
  emailGatewayPort?: number;
  /** Writes which users have a live event queue here, for every node's email worker (tests run it at once). */
  queuePresence: { runNow(): Promise<void> };
  close(): Promise<void>;
}

/** log: the process's logger; by default pino on stdout at config.logLevel (tests pass one writing to a stream they read). */
export async function openApp(config: Config, clock: Clock = systemClock, log: Logger = createLogger({ level: config.logLevel })): Promise<AppContext> {
  const store = await Store.open({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, warn: (m) => log.warn(m) });
  const bus = await openBus(config.busUrl);
  const queues = new QueueRegistry({ nodeId: config.nodeId, heartbeatSecs: config.heartbeatSecs, now: () => clock.now() });
  bus.subscribe((notices) => queues.deliver(notices));
  bus.subscribeControl((m) => {
    if (m.type === 'user_deactivated') queues.removeUserQueues(m.userId);
  });
  // Ten failed password attempts per username in ten minutes, then wait.
  const passwordLimiter = new RateLimiter(10, 600, () => clock.now());
  const search = new SearchIndexer(store, (m) => log.error(m));
  await search.start();
  // Nodes of one deployment share a database: its URL (or the SQLite directory) names the deployment.
  const rateLimits = await RequestRateLimits.open(config.rateLimits, config.databaseUrl, config.databaseUrl || config.dataDir);
  const imageProxy = await loadImageProxy(config, store);
  const files = openFileStorage(config, store, clock);
  return { config, store, files, bus, queues, clock, caches: new Caches(store, bus), passwordLimiter, rateLimits, mail: createOutbox(config), search, log, counters: new OpsCounters(), imageProxy };
}

const queueFile = (config: Config) => path.join(config.dataDir, `event-queues-${config.nodeId}.json`);

export async function startServer(config: Config, opts: { clock?: Clock; logger?: Logger } = {}): Promise<RunningServer> {
  startLoopMonitor();
  const app = await openApp(config, opts.clock, opts.logger);
  const log = app.log;
  const restored = app.queues.load(queueFile(config));
  if (restored) log.info({ queues: restored }, 'restored event queues');
  app.queues.start();
  // Off unless asked for: the default process metrics sample the event loop and the collector, and
  // prom-client is loaded only then (about 7 MB of a server's idle memory, docs/decisions.md).
  const metrics = config.metrics ? new (await import('./ops/metrics.js')).Metrics({ counters: app.counters, queues: app.queues }) : null;
  const onUnexpected = (err: unknown, requestId: string) => log.error({ req_id: requestId, err }, 'unexpected error');
  // The web client (sign-in, its files, its pages) in front of the API.
  const handler = createWebHandler(app, createRequestHandler(app, buildRouter(), { metrics }), onUnexpected);
  // An idle connection closes after 2 minutes; never before a held long-poll's heartbeat is due.
  const keepAliveTimeoutMs = Math.max(120_000, (config.heartbeatSecs + 30) * 1000);
  const listener = createListener((req, res) => void handler(req, res), {
    keepAliveTimeoutMs,
    headersTimeoutMs: config.headersTimeoutMs,
    requestTimeoutMs: config.requestTimeoutMs,
    leanHttp: config.leanHttp,
  });
  const server = listener.server;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const reminders = startReminderWorker(app, (m) => log.error(m));
  const scheduled = startScheduledMessageWorker(app, (m) => log.error(m));
  const emails = startEmailWorker(app, (m) => log.error(m));
  const queuePresence = startQueuePresence(app, (m) => log.error(m));
  // Off unless PARLEY_EMAIL_GATEWAY_LISTEN names an address.
  // Loaded only when it listens: its HTML-to-Markdown converter brings a DOM (17.6 MB imported on its own).
  const gateway = config.emailGatewayListen ? await (await import('./workers/email-gateway.js')).startEmailGateway(app) : null;
  let closed = false;
  return {
    app,
    port,
    url: `http://${config.host}:${port}`,
    ...(gateway ? { emailGatewayPort: gateway.port } : {}),
    queuePresence,
    async close() {
      if (closed) return;
      closed = true;
      await reminders.stop();
      await scheduled.stop();
      await emails.stop();
      await queuePresence.stop();
      await gateway?.stop();
      app.queues.stop();
      app.search.stop();
      app.queues.save(queueFile(config));
      listener.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await app.bus.close();
      await app.mail.close();
      await app.rateLimits.close();
      await app.store.close();
    },
  };
}
