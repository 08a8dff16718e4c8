// Reads the mail the server really wrote to its outbox directory (no SMTP configured in tests).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { TestServer } from './server.js';

/** The mails written to an address, oldest first. */
export function mailTo(s: TestServer, address: string): string[] {
  const dir = path.join(s.running.app.config.dataDir, 'outbox');
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.eml'))
    .sort()
    .map((f) => fs.readFileSync(path.join(dir, f), 'utf8'))
    .filter((m) => m.includes(`\r\nTo: ${address}\r\n`));
}

/** The key of the newest link of this form mailed to an address. */
export function mailedKey(s: TestServer, address: string, link: RegExp): string {
  const mails = mailTo(s, address);
  assert.ok(mails.length, `no mail to ${address}`);
  const m = link.exec(mails[mails.length - 1]);
  assert.ok(m, `the mail carries a link like ${link}`);
  return m[1];
}
