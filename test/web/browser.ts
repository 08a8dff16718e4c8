// Browser tests' helpers: Debian's chromium through playwright-core (never a downloaded browser),
// skipped with a notice when it is absent, a failure in CI.
import fs from 'node:fs';
import type { Browser, BrowserContext, Page } from 'playwright-core';

export const CHROMIUM = process.env.PARLEY_CHROMIUM ?? '/usr/bin/chromium';

export const CHROMIUM_FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** Why the browser tests cannot run here, or null. In CI a missing browser is an error, not a reason. */
export function browserSkipReason(): string | false {
  if (fs.existsSync(CHROMIUM)) return false;
  if (process.env.CI) throw new Error(`chromium is required in CI for the web client's browser tests, and ${CHROMIUM} is missing`);
  const reason = `SKIPPED: the web client's browser tests need chromium at ${CHROMIUM} (apt-get install chromium)`;
  process.stdout.write(`\nNOTE: ${reason}\n`);
  return reason;
}

export async function launch(): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_FLAGS, headless: true });
}

/** A fresh browser context signed in through the login form, on the inbox. */
export async function signIn(browser: Browser, baseUrl: string, email: string, password: string, opts: { colorScheme?: 'light' | 'dark'; viewport?: { width: number; height: number } } = {}): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ baseURL: baseUrl, colorScheme: opts.colorScheme ?? 'light', viewport: opts.viewport ?? { width: 1280, height: 800 } });
  const page = await context.newPage();
  await page.goto('/');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.getByRole('navigation', { name: 'Channels' }).waitFor();
  return { context, page };
}
