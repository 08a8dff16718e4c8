// Outgoing-webhook bots: their services, the realm's active ones (cached for the send path), URL and
// interface rules, the payload the original POSTs and how it reads the answer.
import type { AppContext } from '../context.js';
import type { Tx } from '../store/store.js';
import type { BotServiceRow } from '../store/schema-people.js';
import { badRequest } from '../core/api-error.js';
import { invalidParam, missing } from '../core/params.js';
import { BotType } from '../models/roles.js';
import { RealmCache } from './realm-cache.js';

/** The original's interfaces: its generic payload, and Slack's outgoing-webhook form. */
export const INTERFACE_GENERIC = 1;
export const INTERFACE_SLACK = 2;
const INTERFACES = [INTERFACE_GENERIC, INTERFACE_SLACK];

/** How long the server waits for a webhook's answer. */
export const OUTGOING_WEBHOOK_TIMEOUT_MS = 10_000;

export interface ServiceDict {
  base_url: string;
  interface: number;
  token: string;
}

export function serviceDict(r: Pick<BotServiceRow, 'base_url' | 'interface' | 'token'>): ServiceDict {
  return { base_url: r.base_url, interface: r.interface, token: r.token };
}

/** Services of the given bots, by bot ID (register's realm_bots and realm_bot events carry them). */
export async function botServices(tx: Tx, botIds: number[]): Promise<Map<number, ServiceDict[]>> {
  const out = new Map<number, ServiceDict[]>();
  if (!botIds.length) return out;
  const rows = await tx.selectFrom('bot_services').selectAll().where('bot_id', 'in', botIds).execute();
  for (const r of rows) out.set(r.bot_id, [serviceDict(r)]);
  return out;
}

/** payload_url: an absolute http(s) URL, as the original's check_url requires. */
export function checkPayloadUrl(url: string, name = 'payload_url'): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw invalidParam(`${name} is not a URL`, name);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw invalidParam(`${name} is not a URL`, name);
  return url;
}

export function checkInterface(value: number): number {
  if (!INTERFACES.includes(value)) throw badRequest('Invalid interface type');
  return value;
}

// ---- the realm's active outgoing-webhook bots, for the send path ----

export type RealmServices = ReadonlyMap<number, BotServiceRow>;

const services = new RealmCache<RealmServices>('bot_services_changed', async (app, realmId) => {
  const rows = await app.store.db
    .selectFrom('bot_services as s')
    .innerJoin('users as u', 'u.id', 's.bot_id')
    .selectAll('s')
    .where('u.realm_id', '=', realmId)
    .execute();
  return new Map(rows.map((r) => [r.bot_id, r]));
});

/**
 * The realm's outgoing-webhook bots, active or not (a call reads the bot's row and skips a deactivated
 * one, so deactivating and reactivating need not reload this): a query on first use, then from memory
 * until a service is added.
 */
export function realmServices(app: AppContext, realmId: number): Promise<RealmServices> {
  return services.get(app, realmId);
}

/** Call after committing a change to a service or to its bot's active state. */
export function botServicesChanged(app: AppContext, realmId: number): void {
  services.changed(app, realmId);
}

// ---- the answer ----

/** What to post back from a webhook's JSON answer (the original's rules); null for nothing. */
export function replyContent(body: unknown): string | null {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return null;
  const b = body as Record<string, unknown>;
  if (b.response_not_required === true) return null;
  const content = 'response_string' in b ? b.response_string : 'content' in b ? b.content : undefined;
  if (content === undefined || content === null) return null;
  const text = typeof content === 'string' ? content : JSON.stringify(content);
  return text.trim() ? text : null;
}

// ---- creating one ----

export interface ServiceInput {
  payloadUrl: string;
  interfaceType: number;
}

/** POST /bots's payload_url and interface_type (JSON-encoded, as the original takes them); required for outgoing-webhook bots. */
export function serviceInput(botType: number, payloadUrl: string | undefined, interfaceType: number | undefined): ServiceInput | undefined {
  if (botType !== BotType.OUTGOING_WEBHOOK) return undefined;
  if (!payloadUrl) throw missing('payload_url');
  return { payloadUrl: checkPayloadUrl(payloadUrl), interfaceType: checkInterface(interfaceType ?? INTERFACE_GENERIC) };
}

/** Validators of the JSON-encoded payload_url and interface_type. */
export function jsonString(v: unknown, n: string): string {
  if (typeof v !== 'string') throw invalidParam(`${n} is not a string`, n);
  return v;
}

export function jsonInteger(v: unknown, n: string): number {
  if (typeof v !== 'number' || !Number.isInteger(v)) throw invalidParam(`${n} is not an integer`, n);
  return v;
}
