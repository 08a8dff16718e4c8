// Time to usable for the web client (`npm run bench:web`): on an organization of 1,000 users and
// 100 channels, how long from navigation until the channel list and the last messages are shown,
// in headless chromium on this machine. A measurement to read, not a test: it asserts nothing.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTestServer } from '../test/helpers/server.js';
import { doCreateUser } from '../src/actions/users.js';
import { launch, signIn } from '../test/web/browser.js';

const USERS = 1000;
const CHANNELS = 100;
const MESSAGES_PER_CHANNEL = 10;
const RUNS = 7;

const s = await startTestServer();
const app = s.running.app;
process.stdout.write(`building the organization: ${USERS} users, ${CHANNELS} channels, ${CHANNELS * MESSAGES_PER_CHANNEL} messages… `);
for (let i = 1; i < USERS; i++) await doCreateUser(app, s.realm, { email: `person${i}@example.com`, fullName: `Person ${i}`, password: null, role: 400 });
const names = Array.from({ length: CHANNELS }, (_, i) => `channel-${String(i + 1).padStart(3, '0')}`);
await s.owner.ok('POST', 'users/me/subscriptions', { subscriptions: names.map((name) => ({ name })) });
const sends: (() => Promise<unknown>)[] = [];
for (const name of names) for (let m = 0; m < MESSAGES_PER_CHANNEL; m++) sends.push(() => s.owner.ok('POST', 'messages', { type: 'stream', to: name, topic: `topic ${m % 3}`, content: `Message ${m} in **${name}**` }));
for (let i = 0; i < sends.length; i += 16) await Promise.all(sends.slice(i, i + 16).map((f) => f()));
console.log('done');

const jsDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../public/assets');
const gz = fs.readdirSync(jsDir).filter((f) => f.endsWith('.js.gz')).reduce((sum, f) => sum + fs.statSync(path.join(jsDir, f)).size, 0);

const browser = await launch();
const { page } = await signIn(browser, s.url, 'owner@example.com', 'owner-password');
const times: number[] = [];
for (let run = 0; run < RUNS; run++) {
  await page.goto('about:blank');
  const start = Date.now();
  await page.goto('/');
  // Usable: every channel listed and the newest messages on screen.
  await page.waitForFunction((n) => document.querySelectorAll('nav[aria-label="Channels"] li > a').length >= n && document.querySelectorAll('[role="log"] article').length > 0, CHANNELS, { polling: 'raf' });
  times.push(Date.now() - start);
}
await browser.close();
await s.close();
times.sort((a, b) => a - b);
console.log(JSON.stringify({ users: USERS, channels: CHANNELS, runs: RUNS, time_to_usable_ms: { median: times[Math.floor(RUNS / 2)], min: times[0], max: times[RUNS - 1], all: times }, initial_js_gzip_bytes: gz }));
