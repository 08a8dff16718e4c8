// `parley create-realm`: a new organization and its owner; prints one JSON line.
import { Command } from 'commander';
import { doCreateRealm } from '../actions/realms.js';
import { configOf, urlOf, withApp, withServerOptions, type CliIO } from './common.js';
import { writeZuliprc, ZULIPRC_HELP } from './zuliprc.js';

export function createRealmCommand(io: CliIO): Command {
  return withServerOptions(
    new Command('create-realm')
      .description('create an organization and its owner; prints {"realm_id","realm_url","user_id","email","api_key"}')
      .requiredOption('--name <name>', "the organization's name")
      .requiredOption('--owner-email <email>', "the owner's email (login)")
      .requiredOption('--owner-name <name>', "the owner's full name")
      .requiredOption('--owner-password <password>', "the owner's password")
      .option('--subdomain <subdomain>', 'its subdomain of the external URL ("" is the root organization)', '')
      .option('--zuliprc <path>', ZULIPRC_HELP),
  ).action(async (opts) => {
    const config = configOf(opts, io.env);
    const out = await withApp(config, async (app) => {
      const { realm, owner } = await doCreateRealm(app, { name: opts.name, subdomain: opts.subdomain, ownerEmail: opts.ownerEmail, ownerName: opts.ownerName, ownerPassword: opts.ownerPassword });
      return { realm_id: realm.id, realm_url: urlOf(config, realm), user_id: owner.id, email: owner.email, api_key: owner.api_key };
    });
    // The JSON line comes first: if the file cannot be written, the login is still shown.
    io.print(JSON.stringify(out));
    if (opts.zuliprc) writeZuliprc(opts.zuliprc, { site: out.realm_url, email: out.email, key: out.api_key });
    io.code = 0;
  });
}
