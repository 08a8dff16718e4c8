// Property-based permission fuzzing: every declared route called with the IDs and names of an owner's data by a guest,
// a non-subscriber, another organization's owner, a deactivated user and an anonymous caller. None receives the
// owner's private data (in an answer or in an event on its queue) and none changes it (the owner's read is unchanged).
// PARLEY_FUZZ_RUNS sets the number of requests (default: a few seconds' worth; PARLEY_FUZZ_LONG=1: 100,000); PARLEY_FUZZ_SEED replays a run.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import fc from 'fast-check';
import { startTestServer, type TestServer } from './helpers/server.js';
import type { ParamDecl } from '../src/core/param-types.js';
import { declaredRoutes, pathSegments, routePath, valid, type Route, type Schema } from './helpers/route-fuzz.js';
import { buildWorld, type Actor, type World } from './helpers/permission-world.js';

/** PARLEY_FUZZ_LONG=1 (or --long): 100,000 requests, for a closing run rather than every CI run. */
const LONG = process.env.PARLEY_FUZZ_LONG === '1' || process.argv.includes('--long');
const RUNS = Number(process.env.PARLEY_FUZZ_RUNS ?? (LONG ? 100_000 : 300));
/** PARLEY_FUZZ_MAX_MS: a long run stops sending after this long (the checks after it still run); the summary gives the count. */
const MAX_MS = process.env.PARLEY_FUZZ_MAX_MS === undefined ? undefined : Number(process.env.PARLEY_FUZZ_MAX_MS);
const SEED = process.env.PARLEY_FUZZ_SEED === undefined ? undefined : Number(process.env.PARLEY_FUZZ_SEED);
/** Requests between two reads of the callers' queues (which also keeps them from expiring on a long run). */
const DRAIN_EVERY = 250;

let s: TestServer;
let w: World;

before(async () => {
  s = await startTestServer();
  w = await buildWorld(s);
});
after(async () => {
  await s.close();
});

/** Routes that only end the caller's own access (its account, its key): they would stop its part of the run. */
const SELF_ENDING = new Set(['DELETE users/me', 'POST users/me/api_key/regenerate']);

/** What a path segment's name points at. */
const KINDS: Record<string, string> = {
  message_id: 'message', stream_id: 'stream', user_id: 'user', muted_user_id: 'user', bot_id: 'bot', draft_id: 'draft', reminder_id: 'reminder',
  saved_snippet_id: 'snippet', scheduled_message_id: 'scheduled', attachment_id: 'attachment', user_group_id: 'group', invite_id: 'invite',
  filter_id: 'filter', playground_id: 'playground', field_id: 'field', channel_folder_id: 'folder', realm_id: 'realm',
};
const pick = <T>(xs: T[]) => fc.constantFrom(...xs);

/** Path segments by name: the owner's object of that kind, else any of the owner's IDs. */
function segmentFor(name: string, isInt: boolean): fc.Arbitrary<string> {

  const all = Object.values(w.ids).flat();
  if (isInt) return (KINDS[name] ? fc.oneof({ weight: 4, arbitrary: pick(w.ids[KINDS[name]]) }, { weight: 1, arbitrary: pick(all) }) : pick(all)).map(String);
  const strings: Record<string, string[]> = {
    email: w.names.email.map(encodeURIComponent),
    user_id_or_email: [...w.names.email.map(encodeURIComponent), ...w.ids.user.map(String)],
    emoji_name: w.names.emoji,
    domain: w.names.domain,
    fragment: w.names.fragment.map(encodeURIComponent),
    filename: w.names.upload.map((p) => p.slice(p.indexOf('/') + 1)),
    token: w.names.temporary.map((p) => p.split('/')[0]),
    file: ['x', 'export.tar.gz', ...w.names.upload.map((p) => p.split('/').pop() ?? 'x')],
    secret: ['x', ...w.names.upload.map((p) => p.split('/')[2])],
  };
  return pick(strings[name] ?? ['x', ...w.names.emoji]);
}

/** A narrow that names the owner's private channel, topic, conversations, messages or words. */
function narrowArb(): fc.Arbitrary<unknown> {
  const term = fc.oneof(
    fc.record({ operator: pick(['channel', 'stream']), operand: fc.oneof(pick(w.ids.stream), pick(w.names.stream)) }),
    fc.record({ operator: fc.constant('topic'), operand: pick(w.names.topic) }),
    fc.record({ operator: pick(['dm', 'pm-with']), operand: fc.oneof(fc.subarray(w.ids.user, { minLength: 1 }), pick(w.names.email)) }),
    fc.record({ operator: pick(['dm-including', 'sender']), operand: fc.oneof(pick(w.ids.user), pick(w.names.email)) }),
    fc.record({ operator: pick(['id', 'with', 'near']), operand: pick(w.ids.message) }),
    fc.record({ operator: fc.constant('search'), operand: pick(['privmsg', 'dmmsg', 'gdmmsg', 'pubmsg', 'privtopic', 'file']) }),
    fc.record({ operator: pick(['is', 'has']), operand: pick(['starred', 'dm', 'private', 'mentioned', 'unread', 'resolved', 'attachment', 'link']) }),
    fc.record({ operator: pick(['channels', 'streams']), operand: pick(['public', 'web-public']) }),
  );
  return fc.array(term, { minLength: 0, maxLength: 3 });
}

/** A parameter by name: the owner's IDs and names where the name says what it points at; elsewhere the schema's shape with the owner's IDs at its leaves. */
function paramFor(name: string, decl: ParamDecl): fc.Arbitrary<string | undefined> {
  const ids = (kind: string) => pick(w.ids[kind]);
  const list = (kind: string) => fc.subarray(w.ids[kind], { minLength: 1 }).map((v) => JSON.stringify(v));
  const one = (kind: string) => ids(kind).map(String);
  const targeted: Record<string, () => fc.Arbitrary<string>> = {
    message_id: () => one('message'),
    messages: () => list('message'),
    message_ids: () => list('message'),
    msg_ids: () => list('message'),
    stream_id: () => one('stream'),
    stream_ids: () => list('stream'),
    stream: () => fc.oneof(pick(w.names.stream), one('stream')),
    subscriptions: () => fc.oneof(pick(w.names.stream).map((n) => JSON.stringify([n])), pick(w.names.stream).map((n) => JSON.stringify([{ name: n }]))),
    to: () => fc.oneof(pick(w.names.stream), one('stream'), list('user'), pick(w.names.email).map((e) => JSON.stringify([e]))),
    topic: () => pick(w.names.topic),
    topic_name: () => pick(w.names.topic),
    user_ids: () => list('user'),
    principals: () => fc.oneof(list('user'), pick(w.names.email).map((e) => JSON.stringify([e]))),
    members: () => list('user'),
    add: () => fc.oneof(list('user'), list('stream')),
    delete: () => fc.oneof(list('user'), list('stream')),
    target_users: () => list('user'),
    sender_id: () => one('user'),
    bot_owner_id: () => one('user'),
    group_ids: () => list('group'),
    add_subgroups: () => list('group'),
    delete_subgroups: () => list('group'),
    queue_id: () => pick(w.names.queue),
    narrow: () => narrowArb().map((n) => JSON.stringify(n)),
    email: () => pick(w.names.email),
    username: () => pick(w.names.email),
    fragment: () => pick(w.names.fragment),
    export_id: () => one('realm'),
    // A time that passes the checks before the target's (a schedule in the past is refused first).
    scheduled_delivery_timestamp: () => fc.integer({ min: 3_600, max: 86_400 * 30 }).map((d) => String(Math.floor(Date.now() / 1000) + d)),
  };
  const leaves = { int: pick(Object.values(w.ids).flat()), str: pick(Object.values(w.ids).flat().map(String)) };
  const shaped = valid(decl.schema as Schema, 0, leaves).map((v) => (decl.json || (typeof v === 'object' && v !== null) ? JSON.stringify(v) : String(v)));
  const arbs: fc.WeightedArbitrary<string | undefined>[] = [{ weight: 3, arbitrary: shaped }, { weight: 1, arbitrary: fc.constant(undefined) }];
  if (targeted[name]) arbs.push({ weight: 6, arbitrary: targeted[name]() });
  return fc.oneof(...arbs);
}

function requestFor(route: Route) {
  const segments = pathSegments(route.pattern).map((p) => segmentFor(p.name, p.isInt));
  const params = Object.fromEntries(Object.entries(route.handler.declaration.params).map(([name, decl]) => [name, paramFor(name, decl)]));
  // Callers who hold working credentials get most requests: the others are refused at the door.
  const actor = fc.oneof(...w.actors.map((a, i) => ({ weight: a.weight, arbitrary: fc.constant(i) })));
  return fc.record({ route: fc.constant(route), actor, segments: fc.tuple(...segments), params: fc.record(params) });
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });

/** One raw request (the fuzzer's own encoding); the answer as text, whatever its type. */
function call(method: string, path: string, body: string, actor: Actor): Promise<{ status: number; text: string }> {
  const url = new URL(s.url);
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', 'content-length': String(Buffer.byteLength(body)) };
  const c = actor.client;
  if (c) headers.authorization = 'Basic ' + Buffer.from(`${c.email}:${c.apiKey}`).toString('base64');
  if (c?.host) headers.host = c.host;
  return new Promise((resolve, reject) => {
    const req = http.request({ hostname: url.hostname, port: url.port, method, path, headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (d: Buffer) => chunks.push(d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

test('declared routes, called with the owner\'s IDs by callers who may not see them: no private data in any answer or event, nothing changed', { timeout: Math.max(600_000, RUNS * 40) }, async () => {
  const routes = declaredRoutes({ web: true, events: true }).filter((r) => !SELF_ENDING.has(`${r.method} ${r.pattern}`));
  assert.ok(routes.length >= 100, `only ${routes.length} declared routes`);
  const before = await w.ownerView();
  // The detector sees the secrets as answers carry them: each of these owner reads holds one of a non-subscriber's.
  const nonsub = w.actors.find((a) => a.name === 'nonsub')!;
  const ownerReads: [string, string][] = [
    ['GET', `/api/v1/messages/${w.privateIds.message[0]}`],
    ['GET', `/api/v1/messages/${w.privateIds.message[2]}`],
    ['GET', '/api/v1/drafts'],
    ['GET', '/api/v1/scheduled_messages'],
    ['GET', '/api/v1/reminders'],
    ['GET', '/api/v1/saved_snippets'],
    ['GET', `/api/v1/bots/${w.privateIds.bot[0]}/api_key`],
    ['GET', `/user_uploads/${w.names.upload[0]}`],
    ['GET', `/api/v1/users/${w.ids.user[1]}`],
  ];
  const ownerActor: Actor = { name: 'owner', client: w.owner, secrets: [], weight: 0 };
  for (const [method, path] of ownerReads) {
    const r = await call(method, path, '', ownerActor);
    assert.ok(nonsub.secrets.some((secret) => r.text.includes(secret)), `no secret in the owner's ${path}: ${r.text.slice(0, 300)}`);
  }
  const leaks: string[] = [];
  const serverErrors: string[] = [];
  /** Successful writes by callers: the suspects when the owner's read changes. */
  const writes: string[] = [];
  /** Secrets a caller itself stored with a successful write (its own data may then hold them): no longer a leak to it. */
  const told = new Map<string, Set<string>>(w.actors.map((a) => [a.name, new Set<string>()]));
  const statuses = new Map<number, number>();
  let calls = 0;
  const started = Date.now();

  const checkText = (actor: Actor, text: string, sent: string, label: string) => {
    const mine = told.get(actor.name)!;
    for (const secret of actor.secrets) if (!mine.has(secret) && !sent.includes(secret) && text.includes(secret)) leaks.push(`${actor.name} received ${JSON.stringify(secret)}: ${label}`);
  };
  const lastEvent = new Map<string, number>();
  const drainQueues = async () => {
    for (const actor of w.actors) {
      if (!actor.queueId || !actor.client) continue;
      // Reading after the last event seen acknowledges it: the queue keeps only what is new.
      const last = lastEvent.get(actor.name) ?? -1;
      const r = await actor.client.ok('GET', 'events', { queue_id: actor.queueId, dont_block: true, last_event_id: last });
      const events = (r.events as { id: number; type: string }[]).filter((e) => e.id > last);
      for (const e of events) if (e.type !== 'heartbeat') checkText(actor, JSON.stringify(e), '', `event ${e.type} on ${actor.name}'s queue`);
      if (events.length) lastEvent.set(actor.name, events[events.length - 1].id);
    }
    // The owner's queue stays the owner's: no caller deleted it.
    const ownerLast = lastEvent.get('owner') ?? -1;
    const mine = (await w.owner.ok('GET', 'events', { queue_id: w.ownerQueue, dont_block: true, last_event_id: ownerLast })).events as { id: number }[];
    if (mine.length) lastEvent.set('owner', Math.max(ownerLast, ...mine.map((e) => e.id)));
  };

  const property = fc.asyncProperty(fc.oneof(...routes.map(requestFor)), async ({ route, actor: index, segments, params }) => {
    const actor = w.actors[index];
    // Another organization's owner may change its own account through the administrators' routes (its address,
    // its role): a path naming the caller itself is its own business, and would end its part of the run.
    if (actor.client && pathSegments(route.pattern).some((p, i) => KINDS[p.name] === 'user' && Number(segments[i]) === actor.client!.userId)) return true;
    const form = new URLSearchParams();
    for (const [k, v] of Object.entries(params)) if (v !== undefined) form.set(k, v);
    // A long-poll answers at once: the fuzz asks about a queue, it does not wait on one.
    if (route.pattern === 'events' && route.method === 'GET') form.set('dont_block', 'true');
    const encoded = form.toString();
    let path = routePath(route.pattern, segments);
    if (route.method === 'GET' && encoded) path += (path.includes('?') ? '&' : '?') + encoded;
    const r = await call(route.method, path, route.method === 'GET' ? '' : encoded, actor);
    calls++;
    // A long run says how far it got, so that a run stopped early still has figures.
    if (calls % 10_000 === 0) console.log(`permission fuzz: ${calls} requests so far, ${Date.now() - started} ms, 5xx: ${serverErrors.length}, leaks: ${leaks.length}`);
    statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
    const sent = decodeURIComponent(path) + ' ' + form.toString() + ' ' + [...form.values()].join(' ');
    const label = `${route.method} ${path.slice(0, 160)} ${encoded.slice(0, 200)} → ${r.status} ${r.text.slice(0, 200)}`;
    if (r.status >= 500) serverErrors.push(`${actor.name} ${label}`);
    checkText(actor, r.text, sent, label);
    if (r.status < 300) {
      pathSegments(route.pattern).forEach((p, i) => {
        const kind = KINDS[p.name];
        if (kind && w.privateIds[kind]?.includes(Number(segments[i]))) leaks.push(`${actor.name} succeeded on the owner's ${kind} ${segments[i]}: ${label}`);
      });
    }
    if (actor.refused && route.handler.declaration.auth === 'user' && r.status < 300) leaks.push(`${actor.name}'s credentials were accepted: ${label}`);
    if (actor.foreignIds && r.status < 300) for (const found of foreignIdsIn(r.text, actor.foreignIds)) leaks.push(`${actor.name} received this organization's ${found}: ${label}`);
    if (r.status < 300 && route.method !== 'GET') {
      writes.push(`${actor.name} ${label}`);
      const mine = told.get(actor.name)!;
      for (const secret of actor.secrets) if (sent.includes(secret)) mine.add(secret);
    }
    if (calls % DRAIN_EVERY === 0) await drainQueues();
    return leaks.length === 0 && serverErrors.length === 0;
  });
  try {
    await fc.assert(property, { numRuns: RUNS, seed: SEED, endOnFailure: true, interruptAfterTimeLimit: MAX_MS, markInterruptAsFailure: false });
  } catch (err) {
    assert.deepEqual({ leaks, serverErrors }, { leaks: [], serverErrors: [] }, String((err as Error).message).slice(0, 400));
  }
  await drainQueues();
  const after = await w.ownerView();
  const changed = Object.keys(before as object).filter((k) => JSON.stringify((before as any)[k]) !== JSON.stringify((after as any)[k]));
  const exempt = [...told].filter(([, set]) => set.size).map(([name, set]) => `${name}: ${set.size}`);
  console.log(`permission fuzz: ${calls} requests over ${routes.length} routes in ${Date.now() - started} ms; 5xx: ${serverErrors.length}; statuses ${JSON.stringify(Object.fromEntries(statuses))}; ${writes.length} successful writes; secrets callers stored themselves: ${exempt.join(', ') || 'none'}`);
  assert.deepEqual(leaks, []);
  assert.deepEqual(serverErrors, []);
  const differences = changed.flatMap((k) => diff((before as any)[k], (after as any)[k], k));
  assert.deepEqual(differences, [], `the owner's data changed; callers' successful writes:\n${writes.slice(-80).join('\n')}`);
  assert.ok(calls >= Math.min(RUNS, 50) || MAX_MS !== undefined, `only ${calls} calls`);
});

/** Where two JSON values differ: one line per path, old → new. */
function diff(a: unknown, b: unknown, at: string): string[] {
  if (JSON.stringify(a) === JSON.stringify(b)) return [];
  if (a && b && typeof a === 'object' && typeof b === 'object') {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    return [...keys].flatMap((k) => diff((a as any)[k], (b as any)[k], `${at}.${k}`));
  }
  return [`${at}: ${JSON.stringify(a)?.slice(0, 200)} → ${JSON.stringify(b)?.slice(0, 200)}`];
}

/** Fields of a JSON answer that name one of the given users or channels ("user_id 3"). */
function foreignIdsIn(text: string, ids: { users: number[]; streams: number[] }): string[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return [];
  }
  const USER_KEYS = new Set(['user_id', 'sender_id', 'bot_owner_id', 'owner_id', 'creator_id']);
  const found: string[] = [];
  const walk = (v: unknown) => {
    if (Array.isArray(v)) return v.forEach(walk);
    if (!v || typeof v !== 'object') return;
    for (const [k, x] of Object.entries(v)) {
      if (USER_KEYS.has(k) && typeof x === 'number' && ids.users.includes(x)) found.push(`${k} ${x}`);
      else if (k === 'stream_id' && typeof x === 'number' && ids.streams.includes(x)) found.push(`${k} ${x}`);
      else walk(x);
    }
  };
  walk(value);
  return found;
}
