// Takes the README's screenshots of the web client (light and dark) into docs/screenshots/:
// `npm run screenshots:web`. Needs chromium; uses a throwaway server with a small sample organization.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTestServer } from '../helpers/server.js';
import { launch, signIn } from './browser.js';

const out = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../docs/screenshots');
fs.mkdirSync(out, { recursive: true });

const s = await startTestServer();
const ann = await s.user('Ann Lee');
const ben = await s.user('Ben Ortiz');
await s.user('Chioma Eze');
await s.owner.ok('POST', 'users/me/subscriptions', { subscriptions: [{ name: 'design' }, { name: 'engineering' }, { name: 'random' }], principals: [s.owner.userId, ann.userId, ben.userId] });
const say = (c: typeof ann, to: string, topic: string, content: string) => c.ok('POST', 'messages', { type: 'stream', to, topic, content });
await say(ann, 'engineering', 'release 1.2', 'The release branch is cut. Anything left for **1.2**?');
await say(ben, 'engineering', 'release 1.2', 'One fix from @**Olivia Owner** is still in review:\n```ts\nexport const retries = 3;\n```');
await say(s.owner, 'engineering', 'release 1.2', '```quote\nOne fix is still in review\n```\nMerged just now :tada:');
const math = await say(ann, 'engineering', 'release 1.2', 'Throughput went up by $$\\frac{3}{2}$$ on the benchmark.');
await ben.ok('POST', `messages/${math.id}/reactions`, { emoji_name: 'rocket' });
await s.owner.ok('POST', `messages/${math.id}/reactions`, { emoji_name: 'rocket' });
await say(ben, 'design', 'colours', 'New palette draft is up.\n```spoiler Preview\nIt is mostly blue.\n```');
await say(ann, 'random', 'lunch', 'Anyone for lunch at noon?');
await ben.ok('POST', 'messages', { type: 'direct', to: [s.owner.userId], content: 'Could you look at my review?' });
const engineering = (await s.owner.ok('GET', 'get_stream_id', { stream: 'engineering' })).stream_id;

const browser = await launch();
for (const scheme of ['light', 'dark'] as const) {
  const login = await browser.newContext({ baseURL: s.url, colorScheme: scheme, viewport: { width: 1280, height: 760 } });
  const lp = await login.newPage();
  await lp.goto('/');
  await lp.getByRole('button', { name: 'Log in' }).waitFor();
  await lp.screenshot({ path: path.join(out, `login-${scheme}.png`) });
  await login.close();

  const { context, page } = await signIn(browser, s.url, 'owner@example.com', 'owner-password', { colorScheme: scheme, viewport: { width: 1280, height: 760 } });
  await page.goto(`/#narrow/channel/${engineering}/topic/release%201.2`);
  await page.getByRole('log', { name: 'Messages' }).getByRole('article').first().waitFor();
  // The pointer rests on the sidebar, so no message shows its hover toolbar.
  await page.mouse.move(5, 740);
  await page.waitForTimeout(300);
  await page.screenshot({ path: path.join(out, `feed-${scheme}.png`) });
  await page.goto('/#settings/display');
  await page.getByRole('heading', { name: 'Settings' }).waitFor();
  await page.screenshot({ path: path.join(out, `settings-${scheme}.png`) });
  await context.close();

  const phone = await signIn(browser, s.url, 'owner@example.com', 'owner-password', { colorScheme: scheme, viewport: { width: 360, height: 720 } });
  await phone.page.goto(`/#narrow/channel/${engineering}/topic/release%201.2`);
  await phone.page.getByRole('log', { name: 'Messages' }).getByRole('article').first().waitFor();
  await phone.page.waitForTimeout(300);
  await phone.page.screenshot({ path: path.join(out, `mobile-${scheme}.png`) });
  await phone.context.close();
}
await browser.close();
await s.close();
console.log(`screenshots written to ${out}`);
