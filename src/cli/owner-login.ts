// The first start's owner login: shown on a terminal, otherwise written to a file only the owner can read.
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { doCreateRealm } from '../actions/realms.js';
import { realmUrl } from '../lib/state/realm.js';
import type { AppContext } from '../context.js';

/** Where the login goes when stdout is not a terminal (a service's log would keep it forever). */
export const OWNER_LOGIN_FILE = 'first-owner-login.txt';

/**
 * On an empty database, creates the first organization and its owner. Their login goes to the
 * terminal when stdout is one; else to <dataDir>/first-owner-login.txt, mode 0600, whose path is
 * printed instead. Nothing is printed on later starts.
 */
export async function bootstrapIfEmpty(app: AppContext, print: (s: string) => void, onTerminal: boolean): Promise<void> {
  const any = await app.store.db.selectFrom('realms').select('id').limit(1).executeTakeFirst();
  if (any) return;
  const password = randomBytes(12).toString('base64url');
  let created;
  try {
    created = await doCreateRealm(app, { name: 'Parley', subdomain: '', ownerEmail: 'owner@example.com', ownerName: 'Owner', ownerPassword: password });
  } catch (err) {
    // Nodes starting together on one database all saw it empty; one of them made the organization.
    if (await app.store.db.selectFrom('realms').select('id').where('string_id', '=', '').executeTakeFirst()) return;
    throw err;
  }
  const { realm, owner } = created;
  const site = realmUrl(app.config.externalUrl, realm.string_id);
  const login = [`  URL:      ${site}`, `  Email:    ${owner.email}`, `  Password: ${password}`, `  API key:  ${owner.api_key}`];
  if (onTerminal) {
    print(['', 'Created a first organization.', ...login, 'This is shown only once; keep it somewhere safe.', ''].join('\n'));
    return;
  }
  const file = path.join(app.config.dataDir, OWNER_LOGIN_FILE);
  fs.mkdirSync(app.config.dataDir, { recursive: true });
  // Removed first so an older file's looser mode is not kept; created with 0600 so it is never readable by others.
  fs.rmSync(file, { force: true });
  const zuliprc = ['[api]', `email=${owner.email}`, `key=${owner.api_key}`, `site=${site}`];
  fs.writeFileSync(file, ['Created a first organization.', ...login, '', 'As a zuliprc for API clients:', ...zuliprc, ''].join('\n'), { mode: 0o600, flag: 'wx' });
  print(`Created a first organization; its owner's login is in ${file} (readable only by this account).`);
}
