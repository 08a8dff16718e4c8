// Typed server configuration, read from command-line flags and PARLEY_* environment variables.
import path from 'node:path';
import { parseJwtKeys, type JwtKeyConfig } from './lib/jwt.js';
import { LOG_LEVELS, isLogLevel } from './ops/logger.js';
import { parseRateRule, type RateLimitConfig } from './lib/request-rate-limits.js';

export interface Config {
  /** Address the HTTP server binds to. */
  host: string;
  port: number;
  /** Holds the SQLite database, saved event queues and the mail outbox. */
  dataDir: string;
  /** postgres://… to use PostgreSQL; empty means the embedded SQLite file in dataDir. */
  databaseUrl: string;
  /** Where uploads, avatars, custom emoji and exports live: "local" (under dataDir, one node) or "database" (every node sharing it). */
  fileStore: 'local' | 'database';
  /** Public base URL; organizations live on subdomains of its host (the root host is the "" organization). */
  externalUrl: string;
  /** Message bus for multi-node deployments: "local" (single process) or nats://host:port. */
  busUrl: string;
  /** Identifies this process among the nodes sharing a database and bus. */
  nodeId: string;
  /** Seconds an unpolled event queue survives unless the client asked otherwise. */
  idleQueueTimeoutSecs: number;
  /** Seconds of silence after which a waiting long-poll gets a heartbeat. */
  heartbeatSecs: number;
  /** Whether to create a first organization and owner on an empty database. */
  bootstrap: boolean;
  /** One log line per request (PARLEY_LOG_REQUESTS=1; off by default, see docs/decisions.md). */
  logRequests: boolean;
  /** Lowest level logged: fatal, error, warn, info (default), debug, trace or silent. */
  logLevel: string;
  /** Whether GET /metrics answers (PARLEY_METRICS=1 or --metrics); 404 otherwise. */
  metrics: boolean;
  /** Bearer token that lets callers other than loopback read /metrics; empty: loopback only. */
  metricsToken: string;
  /** smtp:// or smtps:// URL (with credentials) for outgoing mail; empty writes mail to <dataDir>/outbox/. */
  smtpUrl: string;
  /** The From address of mail the server sends. */
  mailFrom: string;
  /** Milliseconds one delete_topic request keeps deleting batches before answering complete: false. */
  deleteTopicBudgetMs: number;
  /** Messages deleted per transaction by delete_topic. */
  deleteTopicBatchSize: number;
  /** Default validity of an invitation link (INVITATION_LINK_VALIDITY_MINUTES in the original). */
  invitationValidityMinutes: number;
  /** Invitations one organization may send in 24 hours (daily_limit_reached beyond it). */
  invitationsPerDay: number;
  /** Domain of channel email-gateway addresses; empty uses the organization's host. */
  emailGatewayDomain: string;
  /** host:port the email gateway's SMTP/LMTP listener binds (PARLEY_EMAIL_GATEWAY_LISTEN); empty: no listener. */
  emailGatewayListen: string;
  /** Whether the gateway speaks LMTP instead of SMTP (PARLEY_EMAIL_GATEWAY_LMTP=1). */
  emailGatewayLmtp: boolean;
  /** Largest mail the gateway accepts, in MiB (PARLEY_EMAIL_GATEWAY_MAX_MIB). */
  emailGatewayMaxMib: number;
  /** Video-call provider: "" (none) or "meeting-url" (rooms under videoBaseUrl, no external account). */
  videoProvider: string;
  /** Base URL under which the meeting-url provider creates rooms (e.g. https://meet.example.com). */
  videoBaseUrl: string;
  /** BigBlueButton server (PARLEY_BBB_URL, e.g. https://bbb.example.com/bigbluebutton) and its API shared secret (PARLEY_BBB_SECRET); either empty: off. */
  bbbUrl: string;
  bbbSecret: string;
  /** Nextcloud server hosting Talk (PARLEY_NEXTCLOUD_TALK_URL) and the account that creates conversations (PARLEY_NEXTCLOUD_TALK_USER, PARLEY_NEXTCLOUD_TALK_PASSWORD: an app password). */
  nextcloudTalkUrl: string;
  nextcloudTalkUser: string;
  nextcloudTalkPassword: string;
  /** Webex OAuth integration (PARLEY_WEBEX_CLIENT_ID, PARLEY_WEBEX_CLIENT_SECRET; either empty: off) and the API base (PARLEY_WEBEX_API_URL). */
  webexClientId: string;
  webexClientSecret: string;
  webexApiUrl: string;
  /** Constructor Groups XAPI (PARLEY_CONSTRUCTOR_GROUPS_URL, e.g. https://example.constructor.app/api/groups/xapi) and its keys (PARLEY_CONSTRUCTOR_GROUPS_ACCESS_KEY, PARLEY_CONSTRUCTOR_GROUPS_SECRET_KEY); any empty: off. */
  constructorGroupsUrl: string;
  constructorGroupsAccessKey: string;
  constructorGroupsSecretKey: string;
  /** Outgoing-webhook bots may POST to private, loopback and link-local addresses (PARLEY_OUTGOING_WEBHOOKS_ALLOW_PRIVATE=1); off by default (SSRF). */
  outgoingWebhooksAllowPrivate: boolean;
  /** JWT login per organization subdomain (PARLEY_JWT_KEYS: {"sub": {"key", "algorithms", "audience"?, "issuer"?, "clock_skew_secs"?, "require_exp"?}}); empty: off. */
  jwtKeys: Map<string, JwtKeyConfig>;
  /** Largest avatar image POST /users/me/avatar accepts, in MiB (max_avatar_file_size_mib in /register). */
  maxAvatarFileSizeMib: number;
  /** Largest file POST /user_uploads accepts, in MiB (max_file_upload_size_mib in /register). */
  maxFileUploadSizeMib: number;
  /** Total upload bytes per organization, in MiB; 0 means no quota. */
  uploadQuotaMib: number;
  /** Seconds a temporary (signed) upload URL stays valid. */
  signedUploadUrlSecs: number;
  /** Milliseconds a request's head may take to arrive before a 408 (PARLEY_HEADERS_TIMEOUT_MS). */
  headersTimeoutMs: number;
  /** Milliseconds a whole request, body included, may take to arrive before a 408 (PARLEY_REQUEST_TIMEOUT_MS). */
  requestTimeoutMs: number;
  /** Plain HTTP/1.1 requests served on the socket itself (PARLEY_LEAN_HTTP, default 1); 0: all through Node's server. */
  leanHttp: boolean;
  /** Request rate limits (PARLEY_RATE_LIMIT_*): where they are counted and how many requests each allows. */
  rateLimits: RateLimitConfig;
  /** Image proxy for external previews (PARLEY_IMAGE_PROXY, default 1); 0 when the server has no outbound network: previews keep their URLs. */
  imageProxy: boolean;
  /** Its HMAC key (PARLEY_IMAGE_PROXY_KEY); empty: one generated once and kept in the database for every node. */
  imageProxyKey: string;
  /** Let the proxy fetch loopback and private addresses (PARLEY_IMAGE_PROXY_ALLOW_PRIVATE=1; for tests only). */
  imageProxyAllowPrivate: boolean;
  /** Largest image the proxy fetches, in MiB (PARLEY_IMAGE_PROXY_MAX_MIB, default 10). */
  imageProxyMaxMib: number;
}

type Env = Record<string, string | undefined>;

/** "host:port" (IPv6 hosts in brackets), checked at start; empty stays empty. */
function listenAddress(value: string): string {
  if (!value) return '';
  const m = /^(\[[0-9a-fA-F:.]+\]|[^:\s]+):(\d{1,5})$/.exec(value);
  if (!m || Number(m[2]) > 65535) throw new Error(`PARLEY_EMAIL_GATEWAY_LISTEN must be host:port, got "${value}"`);
  return value;
}

function intFrom(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a non-negative integer, got "${value}"`);
  return n;
}

function fileStoreFrom(value: string | undefined): 'local' | 'database' {
  if (value === undefined || value === '') return 'local';
  if (value !== 'local' && value !== 'database') throw new Error(`file store must be local or database, got "${value}"`);
  return value;
}

function logLevelFrom(value: string | undefined): string {
  if (value === undefined || value === '') return 'info';
  if (!isLogLevel(value)) throw new Error(`log level must be one of ${LOG_LEVELS.join(', ')}, got "${value}"`);
  return value;
}

/** An on/off setting: 1/true/yes (or a bare flag, given as "") is on, 0/false/no or absent is off. */
function switchFrom(value: string | undefined, name: string): boolean {
  if (value === undefined) return false;
  const v = value.toLowerCase();
  if (v === '' || v === '1' || v === 'true' || v === 'yes') return true;
  if (v === '0' || v === 'false' || v === 'no') return false;
  throw new Error(`${name} must be 1 or 0, got "${value}"`);
}

/** Builds the configuration; explicit flags win over environment variables, which win over defaults. */
export function loadConfig(flags: Record<string, string | undefined> = {}, env: Env = process.env): Config {
  const host = flags.host ?? env.PARLEY_HOST ?? '127.0.0.1';
  const port = intFrom(flags.port ?? env.PARLEY_PORT, 9991, 'port');
  const dataDir = path.resolve(flags['data-dir'] ?? env.PARLEY_DATA_DIR ?? './data');
  // Loopback and wildcard binds default to "localhost", whose subdomains (acme.localhost) reach this machine too.
  const publicHost = ['0.0.0.0', '127.0.0.1', '::', '::1'].includes(host) ? 'localhost' : host;
  const externalUrl = (flags['external-url'] ?? env.PARLEY_EXTERNAL_URL ?? `http://${publicHost}:${port}`).replace(/\/+$/, '');
  return {
    host,
    port,
    dataDir,
    databaseUrl: flags['database-url'] ?? env.PARLEY_DATABASE_URL ?? '',
    fileStore: fileStoreFrom(flags['file-store'] ?? env.PARLEY_FILE_STORE),
    externalUrl,
    busUrl: flags['bus-url'] ?? env.PARLEY_BUS_URL ?? 'local',
    nodeId: flags['node-id'] ?? env.PARLEY_NODE_ID ?? 'n1',
    idleQueueTimeoutSecs: intFrom(env.PARLEY_IDLE_QUEUE_TIMEOUT_SECS, 600, 'PARLEY_IDLE_QUEUE_TIMEOUT_SECS'),
    heartbeatSecs: intFrom(env.PARLEY_HEARTBEAT_SECS, 50, 'PARLEY_HEARTBEAT_SECS'),
    bootstrap: (flags.bootstrap ?? env.PARLEY_BOOTSTRAP ?? '1') !== '0',
    // Off by default, as before: a line per answered long-poll costs a third of delivery's CPU at
    // 10,000 listeners (docs/decisions.md). PARLEY_LOG_REQUESTS=1 turns the JSON lines on.
    logRequests: (env.PARLEY_LOG_REQUESTS ?? '0') !== '0',
    logLevel: logLevelFrom(flags['log-level'] ?? env.PARLEY_LOG_LEVEL),
    metrics: switchFrom(flags.metrics ?? (env.PARLEY_METRICS || undefined), 'metrics'),
    metricsToken: env.PARLEY_METRICS_TOKEN ?? '',
    smtpUrl: env.PARLEY_SMTP_URL ?? '',
    mailFrom: env.PARLEY_MAIL_FROM ?? `Parley <noreply@${new URL(externalUrl).hostname}>`,
    deleteTopicBudgetMs: intFrom(env.PARLEY_DELETE_TOPIC_BUDGET_MS, 10_000, 'PARLEY_DELETE_TOPIC_BUDGET_MS'),
    deleteTopicBatchSize: Math.max(1, intFrom(env.PARLEY_DELETE_TOPIC_BATCH_SIZE, 1000, 'PARLEY_DELETE_TOPIC_BATCH_SIZE')),
    jwtKeys: parseJwtKeys(env.PARLEY_JWT_KEYS ?? ''),
    maxAvatarFileSizeMib: Math.max(1, intFrom(env.PARLEY_MAX_AVATAR_FILE_SIZE_MIB, 5, 'PARLEY_MAX_AVATAR_FILE_SIZE_MIB')),
    invitationValidityMinutes: Math.max(1, intFrom(env.PARLEY_INVITATION_LINK_VALIDITY_MINUTES, 14400, 'PARLEY_INVITATION_LINK_VALIDITY_MINUTES')),
    invitationsPerDay: intFrom(env.PARLEY_INVITATIONS_PER_DAY, 100, 'PARLEY_INVITATIONS_PER_DAY'),
    emailGatewayDomain: env.PARLEY_EMAIL_GATEWAY_DOMAIN ?? '',
    emailGatewayListen: listenAddress(flags['email-gateway-listen'] ?? env.PARLEY_EMAIL_GATEWAY_LISTEN ?? ''),
    emailGatewayLmtp: switchFrom(env.PARLEY_EMAIL_GATEWAY_LMTP || undefined, 'PARLEY_EMAIL_GATEWAY_LMTP'),
    emailGatewayMaxMib: Math.max(1, intFrom(env.PARLEY_EMAIL_GATEWAY_MAX_MIB, 25, 'PARLEY_EMAIL_GATEWAY_MAX_MIB')),
    videoBaseUrl: (env.PARLEY_VIDEO_BASE_URL ?? '').replace(/\/+$/, ''),
    bbbUrl: (env.PARLEY_BBB_URL ?? '').replace(/\/+$/, ''),
    bbbSecret: env.PARLEY_BBB_SECRET ?? '',
    nextcloudTalkUrl: (env.PARLEY_NEXTCLOUD_TALK_URL ?? '').replace(/\/+$/, ''),
    nextcloudTalkUser: env.PARLEY_NEXTCLOUD_TALK_USER ?? '',
    nextcloudTalkPassword: env.PARLEY_NEXTCLOUD_TALK_PASSWORD ?? '',
    webexClientId: env.PARLEY_WEBEX_CLIENT_ID ?? '',
    webexClientSecret: env.PARLEY_WEBEX_CLIENT_SECRET ?? '',
    webexApiUrl: (env.PARLEY_WEBEX_API_URL || 'https://webexapis.com/v1').replace(/\/+$/, ''),
    constructorGroupsUrl: (env.PARLEY_CONSTRUCTOR_GROUPS_URL ?? '').replace(/\/+$/, ''),
    constructorGroupsAccessKey: env.PARLEY_CONSTRUCTOR_GROUPS_ACCESS_KEY ?? '',
    constructorGroupsSecretKey: env.PARLEY_CONSTRUCTOR_GROUPS_SECRET_KEY ?? '',
    outgoingWebhooksAllowPrivate: switchFrom(env.PARLEY_OUTGOING_WEBHOOKS_ALLOW_PRIVATE || undefined, 'PARLEY_OUTGOING_WEBHOOKS_ALLOW_PRIVATE'),
    // Setting a base URL is enough to enable the built-in provider.
    videoProvider: env.PARLEY_VIDEO_PROVIDER ?? (env.PARLEY_VIDEO_BASE_URL ? 'meeting-url' : ''),
    maxFileUploadSizeMib: intFrom(env.PARLEY_MAX_FILE_UPLOAD_SIZE_MIB, 25, 'PARLEY_MAX_FILE_UPLOAD_SIZE_MIB'),
    uploadQuotaMib: intFrom(env.PARLEY_UPLOAD_QUOTA_MIB, 0, 'PARLEY_UPLOAD_QUOTA_MIB'),
    signedUploadUrlSecs: Math.max(1, intFrom(env.PARLEY_SIGNED_UPLOAD_URL_SECS, 60, 'PARLEY_SIGNED_UPLOAD_URL_SECS')),
    headersTimeoutMs: Math.max(1, intFrom(env.PARLEY_HEADERS_TIMEOUT_MS, 60_000, 'PARLEY_HEADERS_TIMEOUT_MS')),
    // Node's own default: time enough for the largest upload on a slow link.
    requestTimeoutMs: Math.max(1, intFrom(env.PARLEY_REQUEST_TIMEOUT_MS, 300_000, 'PARLEY_REQUEST_TIMEOUT_MS')),
    leanHttp: (env.PARLEY_LEAN_HTTP ?? '1') !== '0',
    imageProxy: (env.PARLEY_IMAGE_PROXY ?? '1') !== '0',
    imageProxyKey: env.PARLEY_IMAGE_PROXY_KEY ?? '',
    imageProxyAllowPrivate: switchFrom(env.PARLEY_IMAGE_PROXY_ALLOW_PRIVATE || undefined, 'PARLEY_IMAGE_PROXY_ALLOW_PRIVATE'),
    imageProxyMaxMib: Math.max(1, intFrom(env.PARLEY_IMAGE_PROXY_MAX_MIB, 10, 'PARLEY_IMAGE_PROXY_MAX_MIB')),
    rateLimits: {
      store: env.PARLEY_RATE_LIMIT_STORE || 'memory',
      // The original's api_by_user and api_by_ip rules; logins stricter.
      apiPerUser: parseRateRule(env.PARLEY_RATE_LIMIT_API || '200/60', 'PARLEY_RATE_LIMIT_API'),
      unauthenticatedPerIp: parseRateRule(env.PARLEY_RATE_LIMIT_UNAUTHENTICATED || '100/60', 'PARLEY_RATE_LIMIT_UNAUTHENTICATED'),
      authenticationPerIp: parseRateRule(env.PARLEY_RATE_LIMIT_AUTHENTICATION || '10/60', 'PARLEY_RATE_LIMIT_AUTHENTICATION'),
    },
  };
}
