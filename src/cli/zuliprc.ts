// Writes a zuliprc (site, email, key) for a new account, the file API clients and zulip-terminal read.
import fs from 'node:fs';
import path from 'node:path';
import { CommandError } from './common.js';

/** The --zuliprc option's help. */
export const ZULIPRC_HELP = 'also write the account\'s login as a zuliprc file for API clients (mode 0600; must not exist)';

export function writeZuliprc(file: string, login: { site: string; email: string; key: string }): void {
  const target = path.resolve(file);
  const text = ['[api]', `email=${login.email}`, `key=${login.key}`, `site=${login.site}`, ''].join('\n');
  try {
    // 'wx': never overwrites another account's file; 0600: an API key is a password.
    fs.writeFileSync(target, text, { mode: 0o600, flag: 'wx' });
  } catch (err) {
    throw new CommandError(`cannot write ${target}: ${(err as Error).message} (the account was created; its key is in the JSON line)`);
  }
}
