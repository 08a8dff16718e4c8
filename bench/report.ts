// The result keys, the printed table (each figure beside the machine's ceiling) and bench-results.json.
import fs from 'node:fs';

/** Every key bench-results.json must hold as a number. */
export const REQUIRED_KEYS = [
  'http_ceiling_rps',
  'fanout_ceiling_send_rps',
  'fanout_ceiling_delivery_p99_ms_10000',
  'send_rps',
  'send_p50_ms',
  'send_p99_ms',
  'send_p50_ms_at_500',
  'send_p99_ms_at_500',
  'delivery_p99_ms_100',
  'delivery_p99_ms_1000',
  'delivery_p99_ms_10000',
  'max_loop_stall_ms',
  'longpoll_held',
  'longpoll_held_http2',
  'rss_per_1k_queues_mb',
  'rss_idle_mb',
  'messages_topic_p50_ms',
  'messages_topic_p99_ms',
  'register_p50_ms',
  'register_unread_p50_ms',
  'register_unread_p99_ms',
  'register_unread_kb',
  'register_people_p50_ms',
  'register_people_p99_ms',
  'register_people_kb',
  'render_p50_ms',
  'render_p99_ms',
  'render_corpus_p50_ms',
  'render_corpus_p99_ms',
] as const;

const ROWS: [key: string, label: string][] = [
  ['http_ceiling_rps', 'bare node:http, req/s (ceiling)'],
  ['send_rps', 'POST /messages, msg/s'],
  ['send_p50_ms', '  send latency p50, ms'],
  ['send_p99_ms', '  send latency p99, ms'],
  ['send_p50_ms_at_500', '  send p50 at a fixed 500 msg/s, ms'],
  ['send_p99_ms_at_500', '  send p99 at a fixed 500 msg/s, ms'],
  ['send_rate_achieved_at_500', '  rate achieved at 500/s, msg/s'],
  ['send_server_cpu_ms_per_msg', '  server CPU per message sent, ms'],
  ['send_client_cpu_ms_per_msg', '  listening clients\' CPU per message, ms'],
  ['send_longpolls_per_s', '  long-polls answered meanwhile, /s'],
  ['fanout_ceiling_send_rps', 'bare fan-out server, msg/s (ceiling)'],
  ['fanout_ceiling_send_server_cpu_ms_per_msg', '  its CPU per message, ms'],
  ['fanout_ceiling_send_client_cpu_ms_per_msg', '  listening clients\' CPU per message, ms'],
  ['delivery_p99_ms_100', 'delivery p99, listeners #100, ms'],
  ['delivery_p99_ms_1000', 'delivery p99, listeners #1000, ms'],
  ['delivery_p99_ms_10000', 'delivery p99, listeners #10000, ms'],
  ['fanout_ceiling_delivery_p99_ms_10000', '  bare fan-out server, #10000, ms'],
  ['fanout_ceiling_loop_stall_ms_10000', '  its loop stall meanwhile, ms'],
  ['delivery_server_cpu_us_100', '  server CPU per delivery, #100, µs'],
  ['delivery_server_cpu_us_1000', '  server CPU per delivery, #1000, µs'],
  ['delivery_server_cpu_us_10000', '  server CPU per delivery, #10000, µs'],
  ['delivery_client_cpu_us_100', '  clients\' CPU per delivery, #100, µs'],
  ['delivery_client_cpu_us_1000', '  clients\' CPU per delivery, #1000, µs'],
  ['delivery_client_cpu_us_10000', '  clients\' CPU per delivery, #10000, µs'],
  ['fanout_ceiling_delivery_server_cpu_us_10000', '  bare fan-out server\'s CPU, #10000, µs'],
  ['fanout_ceiling_delivery_client_cpu_us_10000', '  its clients\' CPU, #10000, µs'],
  ['max_loop_stall_ms', 'server loop stall max (fan-out), ms'],
  ['longpoll_held', 'long-polls held at once'],
  ['longpoll_held_http2', '  of them HTTP/2 streams'],
  ['rss_per_1k_queues_mb', '  server RSS per 1,000 queues, MB'],
  ['rss_idle_mb', 'server RSS idle, MB'],
  ['messages_topic_p50_ms', 'GET /messages topic, p50, ms'],
  ['messages_topic_p99_ms', 'GET /messages topic, p99, ms'],
  ['register_p50_ms', 'POST /register (1k users), p50, ms'],
  ['register_unread_p50_ms', 'POST /register, unread backlog, p50, ms'],
  ['register_unread_p99_ms', '  its p99, ms'],
  ['register_unread_kb', '  its answer, KB'],
  ['register_unread_compressed_p50_ms', '  p50 with Accept-Encoding, ms'],
  ['register_unread_compressed_kb', '  answer sent with Accept-Encoding, KB'],
  ['register_people_p50_ms', 'POST /register (10k people), p50, ms'],
  ['register_people_p99_ms', '  its p99, ms'],
  ['register_people_kb', '  its answer, KB'],
  ['register_people_compressed_p50_ms', '  p50 with Accept-Encoding, ms'],
  ['register_people_compressed_kb', '  answer sent with Accept-Encoding, KB'],
  ['render_p50_ms', 'POST /messages/render, p50, ms'],
  ['render_p99_ms', 'POST /messages/render, p99, ms'],
  ['render_corpus_p50_ms', 'Markdown corpus render (in-process), p50, ms'],
  ['render_corpus_p99_ms', 'Markdown corpus render (in-process), p99, ms'],
];

export function printTable(r: Record<string, number>, listeners: number[], print: (s: string) => void): void {
  const ceiling = r.http_ceiling_rps;
  print('');
  print(`${'figure'.padEnd(40)} ${'value'.padStart(10)}  vs ceiling`);
  print('-'.repeat(66));
  for (const [key, label0] of ROWS) {
    if (r[key] === undefined) continue;
    const label = label0.replace(/#(\d+)/, (_, n: string) => String(listeners[['100', '1000', '10000'].indexOf(n)] ?? n));
    const v = r[key];
    let vs = '';
    if (key === 'send_rps' && ceiling) vs = `${((100 * v) / ceiling).toFixed(1)} % of ceiling`;
    if (/^send_p\d+_ms$/.test(key) && r.http_ceiling_p99_ms !== undefined) vs = `bare p50 ${r.http_ceiling_p50_ms} / p99 ${r.http_ceiling_p99_ms} ms`;
    else if (key.endsWith('_ms') && key !== 'max_loop_stall_ms' && ceiling) vs = `${((v * ceiling) / 1000).toFixed(0)} × a bare request`;
    if (key === 'fanout_ceiling_send_rps' && r.send_rps !== undefined) vs = `Parley sends ${((100 * r.send_rps) / v).toFixed(0)} % of it`;
    if (key === 'fanout_ceiling_delivery_p99_ms_10000') vs = r.delivery_p99_ms_10000 !== undefined ? `Parley's p99 is ${(r.delivery_p99_ms_10000 / v).toFixed(2)} × it` : '';
    if (key === 'http_ceiling_rps') vs = `${(1000 / ceiling).toFixed(3)} ms per request`;
    print(`${label.padEnd(40)} ${String(v).padStart(10)}  ${vs}`);
  }
  print('');
}

export function missingKeys(r: Record<string, unknown>): string[] {
  return REQUIRED_KEYS.filter((k) => typeof r[k] !== 'number' || !Number.isFinite(r[k]));
}

export function writeResults(file: string, figures: Record<string, number>, info: Record<string, unknown>): void {
  fs.writeFileSync(file, JSON.stringify({ ...figures, info }, null, 2) + '\n');
}
