// POST /register (full state): a member of the 1,000-user organization, the member with the unread backlog, and one of the 10,000-person organization.
import zlib from 'node:zlib';
import { request } from 'undici';
import { api, headersFor, sharedAgent, type Cred } from '../api.js';
import { userCred, type FixtureMeta } from '../bulk-load.js';
import type { Sizes } from '../sizes.js';
import { round, summarize, timeSequential } from '../stats.js';
import { cpuMs, type ServerProcess } from '../server-process.js';

interface Answer {
  ms: number;
  /** Bytes of the JSON answer, and as they came over the wire (compressed when asked for). */
  bytes: number;
  wireBytes: number;
}

/** One register and its queue's deletion; `encoding` is sent as Accept-Encoding (none when absent). */
async function registerOnce(url: string, cred: Cred, encoding?: string): Promise<Answer> {
  const headers = headersFor(cred, true);
  if (encoding) headers['accept-encoding'] = encoding;
  const t0 = performance.now();
  const res = await request(`${url}/api/v1/register`, { method: 'POST', headers, body: '', dispatcher: sharedAgent });
  const raw = Buffer.from(await res.body.arrayBuffer());
  const ms = performance.now() - t0;
  const coding = res.headers['content-encoding'];
  const text = (coding === 'gzip' ? zlib.gunzipSync(raw) : coding === 'br' ? zlib.brotliDecompressSync(raw) : raw).toString();
  if (res.statusCode !== 200) throw new Error(`POST /register → ${res.statusCode} ${text.slice(0, 300)}`);
  const body = JSON.parse(text) as { queue_id: string };
  await api(url, cred, 'DELETE', 'events', { queue_id: body.queue_id });
  return { ms, bytes: text.length, wireBytes: raw.length };
}

/**
 * n timed registers after 3 warm-ups; `cpu` is the server's CPU time per register (and its queue's
 * deletion) over the timed ones, which moves far less than latency when the machine is shared.
 */
async function timeRegister(srv: ServerProcess, cred: Cred, n: number, encoding?: string) {
  let last: Answer = { ms: 0, bytes: 0, wireBytes: 0 };
  let cpu0 = 0;
  const times = await timeSequential(n, 3, async (i) => {
    if (i === 0) cpu0 = cpuMs(srv.pid);
    last = await registerOnce(srv.url, cred, encoding);
    return last.ms;
  });
  const cpu = round((cpuMs(srv.pid) - cpu0) / n);
  return { ...summarize(times), cpu, kb: Math.round(last.bytes / 1024), wireKb: Math.round(last.wireBytes / 1024) };
}

export async function registerScenario(srv: ServerProcess, meta: FixtureMeta, z: Sizes, log: (s: string) => void): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  const s = await timeRegister(srv, userCred(meta.reg, 0), z.registerRequests);
  log(`  register (${meta.reg.users + 1} users, ${Object.keys(meta.reg.channels).length} channels, ${s.kb} KB): p50 ${s.p50} ms, p99 ${s.p99} ms, server CPU ${s.cpu} ms`);
  Object.assign(out, { register_p50_ms: s.p50, register_p99_ms: s.p99, register_kb: s.kb, register_server_cpu_ms: s.cpu });

  // The unread backlog: what a member returning to a busy organization loads first.
  const backlog = userCred(meta.backlog, 0);
  const u = await timeRegister(srv, backlog, z.registerRequests);
  log(`  register, ${z.backlogMessages} unread channel messages + ${z.backlogPersonal} direct (${u.kb} KB): p50 ${u.p50} ms, p99 ${u.p99} ms, server CPU ${u.cpu} ms`);
  Object.assign(out, { register_unread_p50_ms: u.p50, register_unread_p99_ms: u.p99, register_unread_kb: u.kb, register_unread_server_cpu_ms: u.cpu });
  const ug = await timeRegister(srv, backlog, z.registerRequests, 'gzip, deflate, br');
  log(`    with Accept-Encoding (${ug.wireKb} KB sent): p50 ${ug.p50} ms, p99 ${ug.p99} ms, server CPU ${ug.cpu} ms`);
  Object.assign(out, { register_unread_compressed_p50_ms: ug.p50, register_unread_compressed_kb: ug.wireKb, register_unread_compressed_server_cpu_ms: ug.cpu });

  const fan = userCred(meta.fan, 0);
  const f = await timeRegister(srv, fan, z.registerRequests);
  log(`  register, ${meta.fan.users + 1} people (${f.kb} KB): p50 ${f.p50} ms, p99 ${f.p99} ms, server CPU ${f.cpu} ms`);
  Object.assign(out, { register_people_p50_ms: f.p50, register_people_p99_ms: f.p99, register_people_kb: f.kb, register_people_server_cpu_ms: f.cpu });
  const fg = await timeRegister(srv, fan, z.registerRequests, 'gzip, deflate, br');
  log(`    with Accept-Encoding (${fg.wireKb} KB sent): p50 ${fg.p50} ms, p99 ${fg.p99} ms, server CPU ${fg.cpu} ms`);
  Object.assign(out, { register_people_compressed_p50_ms: fg.p50, register_people_compressed_kb: fg.wireKb, register_people_compressed_server_cpu_ms: fg.cpu });
  return out;
}
