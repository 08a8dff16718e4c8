// The web client in a real browser (Debian's chromium through playwright-core) against a real server:
// live sends with unread counts, DMs, typing, edits and deletions, reactions, uploads, reconnecting,
// hostile messages, accessibility (axe-core) and sending with the keyboard alone.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import type { Browser, Locator, Page } from 'playwright-core';
import { startTestServer, type Client, type TestServer } from './helpers/server.js';
import { browserSkipReason, launch, signIn } from './web/browser.js';

const skip = browserSkipReason();

/** Waits until the condition holds (a wait for the page to catch up, not a timing assertion). */
async function until(what: string, fn: () => Promise<boolean>, ceilingMs = 15_000): Promise<void> {
  const end = Date.now() + ceilingMs;
  for (;;) {
    if (await fn()) return;
    if (Date.now() > end) throw new Error(`never happened: ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const feed = (page: Page): Locator => page.getByRole('log', { name: 'Messages' });
const message = (page: Page, text: string): Locator => feed(page).getByRole('article').filter({ hasText: text });
const channelCount = (page: Page, name: string): Locator =>
  page.getByRole('navigation', { name: 'Channels' }).getByRole('listitem').filter({ has: page.getByRole('link', { name, exact: true }) }).locator('> .count');
const composeBox = (page: Page) => page.getByRole('textbox', { name: 'Message', exact: true });
const topicBox = (page: Page) => page.getByRole('textbox', { name: 'Topic', exact: true });

describe('web client in chromium', { skip }, () => {
  let s: TestServer;
  let browser: Browser;
  let ann: Client;
  let ben: Client;
  let annPage: Page;
  let benPage: Page;

  before(async () => {
    s = await startTestServer();
    ann = await s.user('Ann Browser');
    ben = await s.user('Ben Browser');
    browser = await launch();
    annPage = (await signIn(browser, s.url, ann.email, 'ann.browser-password')).page;
    benPage = (await signIn(browser, s.url, ben.email, 'ben.browser-password')).page;
  });
  after(async () => {
    await browser?.close();
    await s?.close();
  });

  test('a send appears live for the other user, whose unread count goes up, then down when seen', async () => {
    await benPage.goto('/#narrow/is/starred');
    await annPage.goto('/');
    await annPage.getByRole('navigation', { name: 'Channels' }).getByRole('link', { name: 'general', exact: true }).click();
    await topicBox(annPage).fill('live');
    await composeBox(annPage).fill('Hello Ben, live from Ann');
    await annPage.getByRole('button', { name: 'Send' }).click();
    await message(annPage, 'Hello Ben, live from Ann').waitFor();
    await until('Ben sees an unread count on general', async () => ((await channelCount(benPage, 'general').textContent()) ?? '').includes('1'));
    await benPage.getByRole('navigation', { name: 'Channels' }).getByRole('link', { name: 'general', exact: true }).click();
    await message(benPage, 'Hello Ben, live from Ann').waitFor();
    await until('the count goes away once seen', async () => (await channelCount(benPage, 'general').count()) === 0);
    const unread = await ben.ok('POST', 'register', { fetch_event_types: ['message', 'update_message_flags'] });
    assert.equal(unread.unread_msgs.count, 0, "the server's count agrees");
  });

  test('direct messages, and the typing notice', async () => {
    await annPage.goto(`/#narrow/dm/${ben.userId}`);
    await benPage.goto(`/#narrow/dm/${ann.userId}`);
    await composeBox(annPage).pressSequentially('typing to Ben');
    await benPage.getByText('Ann Browser is typing').waitFor();
    await composeBox(annPage).press('Enter');
    await message(benPage, 'typing to Ben').waitFor();
    await until('the typing notice ends with the message', async () => (await benPage.getByText('is typing').count()) === 0);
  });

  test('edits and deletions are seen live', async () => {
    const id = (await ann.ok('POST', 'messages', { type: 'stream', to: 'general', topic: 'edits', content: 'before the edit' })).id;
    await benPage.goto('/#narrow/channel/' + (await ann.ok('GET', 'get_stream_id', { stream: 'general' })).stream_id);
    await annPage.goto(benPage.url().replace(/^.*#/, '/#'));
    await message(benPage, 'before the edit').waitFor();
    const mine = message(annPage, 'before the edit');
    await mine.hover();
    await mine.getByRole('button', { name: 'Edit', exact: true }).click();
    const box = annPage.getByRole('textbox', { name: 'Edit message' });
    await box.fill('after the edit');
    await annPage.getByRole('button', { name: 'Save' }).click();
    await message(benPage, 'after the edit').waitFor();
    const edited = message(annPage, 'after the edit');
    await edited.hover();
    await edited.getByRole('button', { name: 'Delete' }).click();
    await edited.getByRole('button', { name: 'Confirm delete' }).click();
    await until('the deletion reaches Ben', async () => (await message(benPage, 'after the edit').count()) === 0);
    assert.equal((await ben.get(`messages/${id}`)).status, 400);
  });

  test('a reaction chosen in the picker shows for both users', async () => {
    await ann.ok('POST', 'messages', { type: 'stream', to: 'general', topic: 'react', content: 'react to me' });
    const target = message(benPage, 'react to me');
    await target.waitFor();
    await target.hover();
    await target.getByRole('button', { name: 'Add reaction' }).click();
    await benPage.getByRole('searchbox', { name: 'Search emoji' }).fill('tada');
    await benPage.getByRole('dialog', { name: 'Emoji picker' }).getByRole('button', { name: 'tada', exact: true }).click();
    await message(annPage, 'react to me').getByRole('button', { name: 'tada: 1' }).waitFor();
  });

  test('an upload through the file picker links the file in the message', async () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'parley-web-up-')), 'notes.txt');
    fs.writeFileSync(file, 'uploaded from the browser\n'.repeat(2000));
    await topicBox(annPage).fill('files');
    await annPage.locator('input[type=file]').first().setInputFiles(file);
    await until('the link is in the compose box', async () => (await composeBox(annPage).inputValue()).includes('/user_uploads/'));
    await composeBox(annPage).press('Enter');
    const sent = message(benPage, 'notes.txt');
    await sent.waitFor();
    const href = await sent.getByRole('link', { name: 'notes.txt' }).getAttribute('href');
    const got = await benPage.request.get(href!);
    assert.equal(got.status(), 200);
    assert.match(await got.text(), /uploaded from the browser/);
  });

  test('a server restart shows "Reconnecting", then the client catches up by itself', async () => {
    // The banner is looked for while the server is down: a restart fast enough for the browser to
    // retry its poll on the new server unseen would otherwise leave nothing to see.
    await s.restart(() => annPage.getByText('Reconnecting').waitFor());
    await ben.ok('POST', 'messages', { type: 'stream', to: 'general', topic: 'after restart', content: 'sent after the restart' });
    await message(annPage, 'sent after the restart').waitFor({ timeout: 30_000 });
    await until('the banner goes away', async () => (await annPage.getByText('Reconnecting').count()) === 0);
  });

  test('hostile messages are shown without running any script', async () => {
    // Counted with the page's CSP bypassed: the server's sanitizing is what is tested, not the CSP.
    const probe = await browser.newContext({ baseURL: s.url, bypassCSP: true });
    await probe.addInitScript(() => {
      const w = window as unknown as { __ran: number };
      w.__ran = 0;
      const ran = () => void w.__ran++;
      window.alert = ran;
      window.confirm = () => (ran(), false);
      window.prompt = () => (ran(), null);
    });
    const p = await probe.newPage();
    await p.goto('/');
    await p.getByLabel('Email').fill(ben.email);
    await p.getByLabel('Password').fill('ben.browser-password');
    await p.getByRole('button', { name: 'Log in' }).click();
    await Promise.all(XSS.slice(0, -1).map((content) => ann.ok('POST', 'messages', { type: 'stream', to: 'general', topic: 'xss', content })));
    await ann.ok('POST', 'messages', { type: 'stream', to: 'general', topic: 'xss', content: XSS[XSS.length - 1] });
    const streamId = (await ann.ok('GET', 'get_stream_id', { stream: 'general' })).stream_id;
    await p.goto(`/#narrow/channel/${streamId}/topic/xss`);
    await message(p, 'last hostile').waitFor();
    // Hover everything so that mouse handlers would fire too.
    for (const a of await feed(p).getByRole('article').all()) await a.hover().catch(() => undefined);
    const ran = await p.evaluate(() => (window as unknown as { __ran: number }).__ran);
    assert.equal(ran, 0);
    await probe.close();
  });

  test('axe-core finds no serious or critical violations on the main views', async () => {
    const axeSource = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
    const ctx = await browser.newContext({ baseURL: s.url, bypassCSP: true });
    const p = await ctx.newPage();
    const scan = async (where: string) => {
      await p.addScriptTag({ content: axeSource });
      const result = await p.evaluate(async () => {
        const axe = (window as unknown as { axe: { run(): Promise<{ violations: { id: string; impact: string; nodes: { target: string[] }[] }[] }> } }).axe;
        return (await axe.run()).violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
      });
      assert.deepEqual(result, [], `${where}: ${result.join('; ')}`);
    };
    await p.goto('/');
    await p.getByLabel('Email').waitFor();
    await scan('sign-in');
    await p.getByLabel('Email').fill(ann.email);
    await p.getByLabel('Password').fill('ann.browser-password');
    await p.getByRole('button', { name: 'Log in' }).click();
    await feed(p).getByRole('article').first().waitFor();
    await scan('inbox');
    await p.goto('/#settings/display');
    await p.getByRole('heading', { name: 'Settings' }).waitFor();
    await scan('settings');
    await ctx.close();
  });

  test('sending with the keyboard alone: c to compose, Enter to send, j/k and r to reply', async () => {
    await annPage.goto('/');
    await annPage.getByRole('navigation', { name: 'Channels' }).waitFor();
    await annPage.locator('body').click({ position: { x: 5, y: 5 } });
    await annPage.keyboard.press('Escape');
    await annPage.keyboard.press('c');
    await annPage.keyboard.type('sent without a mouse');
    // The inbox composes to the first channel; the topic is typed after tabbing back to it.
    await annPage.keyboard.press('Shift+Tab');
    await annPage.keyboard.type('keyboard');
    await annPage.keyboard.press('Tab');
    await annPage.keyboard.press('Enter');
    await message(annPage, 'sent without a mouse').waitFor();
    await annPage.keyboard.press('Escape');
    await annPage.keyboard.press('k');
    await annPage.keyboard.press('r');
    await annPage.keyboard.type('a reply by keyboard');
    await annPage.keyboard.press('Enter');
    await message(annPage, 'a reply by keyboard').waitFor();
    const last = (await ann.ok('GET', 'messages', { anchor: 'newest', num_before: 1, num_after: 0, narrow: [] })).messages[0];
    assert.equal(last.subject, 'keyboard', "r replied in the selected message's topic");
  });

  test('logging out returns to the sign-in form and the cookie no longer works', async () => {
    const { context, page } = await signIn(browser, s.url, ben.email, 'ben.browser-password');
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.getByRole('button', { name: 'Log in' }).waitFor();
    const r = await page.request.get('/api/v1/users/me');
    assert.equal(r.status(), 401);
    await context.close();
  });
});

/** Hostile Markdown: each would run a script if the server let it through. */
const XSS = [
  '[x](javascript:alert(1))',
  '[x](JaVaScRiPt:alert(1))',
  '[x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)',
  '![x](javascript:alert(1))',
  '![x" onerror="alert(1)](https://example.com/a.png)',
  'https://example.com/"><svg/onload=alert(1)>.png',
  '<script>alert(1)</script>',
  '<img src=x onerror=alert(1)>',
  '<svg onload=alert(1)>',
  '<iframe src="javascript:alert(1)"></iframe>',
  '<a href="javascript:alert(1)">x</a>',
  '<details open ontoggle=alert(1)>',
  '<body onload=alert(1)>',
  '"><img src=x onerror=alert(1)><script>alert(1)</script>',
  '`<script>alert(1)</script>`',
  '```\n<script>alert(1)</script>\n```',
  '```spoiler <img src=x onerror=alert(1)>\nhidden\n```',
  '```quote\n<img src=x onerror=alert(1)>\n```',
  '$$\\href{javascript:alert(1)}{x}$$',
  '$$x$$ <img src=x onerror=alert(1)>',
  ':smile:<img src=x onerror=alert(1)>',
  '@**<img src=x onerror=alert(1)>**',
  '#**<img src=x onerror=alert(1)>**',
  '**<img src=x onerror=alert(1)>**',
  '[<img src=x onerror=alert(1)>](https://example.com)',
  '<style>body{background:url(javascript:alert(1))}</style>',
  '<math><mtext><img src=x onerror=alert(1)></mtext></math>',
  '<object data="javascript:alert(1)"></object>',
  'last hostile',
];
