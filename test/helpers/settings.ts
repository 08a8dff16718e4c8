// Fixtures for the settings tests: reading the mail outbox, confirming an email change, and clients whose email changes.
import fs from 'node:fs';
import path from 'node:path';
import { Client, request, type ParamValue, type RequestOptions, type TestServer } from './server.js';

/** The confirmation key of the newest mail sent to `address` (the server writes mail to its outbox directory). */
export function latestConfirmationKey(s: TestServer, address: string): string {
  const dir = path.join(s.running.app.config.dataDir, 'outbox');
  const mails = fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.eml'))
    .sort()
    .map((f) => fs.readFileSync(path.join(dir, f), 'utf8'))
    .filter((m) => m.includes(`\r\nTo: ${address}\r\n`));
  const key = /settings\/email\/confirm\?key=([A-Za-z0-9_-]+)/.exec(mails[mails.length - 1] ?? '')?.[1];
  if (!key) throw new Error(`no confirmation mail to ${address}`);
  return key;
}

/** A client whose basic-auth email can follow a confirmed email change. */
export class RenamableClient extends Client {
  authEmail: string;

  constructor(c: Client) {
    super(c.server, c.userId, c.email, c.apiKey, c.host);
    this.authEmail = c.email;
  }

  override api(method: string, apiPath: string, params: Record<string, ParamValue> = {}, opts: RequestOptions = {}) {
    return super.api(method, apiPath, params, { auth: { email: this.authEmail, apiKey: this.apiKey }, ...opts });
  }
}

/** Requests an email change for `c` and follows the mailed link; `c` then authenticates with the new address. */
export async function changeEmail(s: TestServer, c: RenamableClient, email: string): Promise<void> {
  await c.ok('PATCH', 'settings', { email });
  const r = await request(s.url, 'GET', 'settings/email/confirm', { key: latestConfirmationKey(s, email) }, { host: c.host });
  if (r.status !== 200) throw new Error(`confirming ${email} failed: ${JSON.stringify(r.body)}`);
  c.authEmail = email;
}
