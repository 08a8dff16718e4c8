// `parley create-user`: a new account in an organization; prints one JSON line.
import { Command } from 'commander';
import { doCreateUser } from '../actions/users.js';
import { Role } from '../models/roles.js';
import { configOf, realmNamed, roleCode, urlOf, withApp, withServerOptions, type CliIO } from './common.js';
import { writeZuliprc, ZULIPRC_HELP } from './zuliprc.js';

export function createUserCommand(io: CliIO): Command {
  return withServerOptions(
    new Command('create-user')
      .description('create an account; prints {"realm_id","realm_url","user_id","email","api_key"}')
      .requiredOption('--realm <subdomain>', 'the organization\'s subdomain; --realm "" is the root organization')
      .requiredOption('--email <email>', 'the email (login)')
      .requiredOption('--name <name>', 'the full name')
      .requiredOption('--password <password>', 'the password')
      .option('--role <role>', 'role: 100 owner, 200 administrator, 300 moderator, 400 member, 600 guest (or the name)', roleCode, Role.MEMBER)
      .option('--zuliprc <path>', ZULIPRC_HELP),
  ).action(async (opts) => {
    const config = configOf(opts, io.env);
    const out = await withApp(config, async (app) => {
      const realm = await realmNamed(app, opts.realm);
      const user = await doCreateUser(app, realm, { email: opts.email, fullName: opts.name, password: opts.password, role: opts.role });
      return { realm_id: realm.id, realm_url: urlOf(config, realm), user_id: user.id, email: user.email, api_key: user.api_key };
    });
    // The JSON line comes first: if the file cannot be written, the login is still shown.
    io.print(JSON.stringify(out));
    if (opts.zuliprc) writeZuliprc(opts.zuliprc, { site: out.realm_url, email: out.email, key: out.api_key });
    io.code = 0;
  });
}
